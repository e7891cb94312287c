// The page's router: #/ the lobby, #/m/<id> a table, #/watch/<id> a match as a spectator,
// #/replay/<id> or #/replay the replay viewer. The header switches the language (i18n.ts).

import { h, mount } from "./dom";
import { lang, setLang, t } from "./i18n";
import { Lobby } from "./lobby";
import { Replay } from "./replay";
import { Table } from "./table";

interface Screen {
  start(): Promise<void>;
  stop(): void;
}

let current: Screen | undefined;

function route(): void {
  current?.stop();
  const main = document.getElementById("main")!;
  const [, kind, id] = location.hash.replace(/^#\/?/, "/").split("/");
  const valid = id !== undefined && /^[A-Za-z0-9_-]{1,64}$/.test(id);
  if ((kind === "m" || kind === "watch") && valid) current = new Table(main, id, kind === "watch");
  else if (kind === "replay") current = new Replay(main, valid ? id : undefined);
  else current = new Lobby(main);
  void current.start();
}

function header(): HTMLElement {
  return h("header", { class: "top" }, h("a", { href: "#/", class: "brand" }, "Kozyr"),
    h("nav", { "aria-label": "Kozyr" }, h("a", { href: "#/" }, t("app.lobby")), " ", h("a", { href: "#/replay" }, t("app.replays"))),
    h("button", { type: "button", class: "lang", "data-testid": "lang", lang: lang() === "en" ? "ru" : "en",
      "aria-label": t("app.switchLabel"), onclick: () => { setLang(lang() === "en" ? "ru" : "en"); draw(); } }, t("app.switch")));
}

function draw(): void {
  document.documentElement.lang = lang();
  mount(document.body, header(), h("main", { id: "main" }));
  route();
}

window.addEventListener("hashchange", route);
draw();
