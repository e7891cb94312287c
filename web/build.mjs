// Bundle the page into service/kozyr/web/static (or $KOZYR_WEB_OUT, which the freshness test
// uses): one minified ES module, its stylesheet and index.html. Deterministic for one lock file.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const out = process.env.KOZYR_WEB_OUT ?? "../service/kozyr/web/static";
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  legalComments: "none",
  outfile: join(out, "app.js"),
  logLevel: "warning",
});
for (const file of ["index.html", "app.css"]) copyFileSync(join("src", file), join(out, file));
