// The page's router: #/ the lobby, #/m/<id> a table, #/replay/<id> or #/replay the replay viewer.

import { h, mount } from "./dom";
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
  if (kind === "m" && valid) current = new Table(main, id);
  else if (kind === "replay") current = new Replay(main, valid ? id : undefined);
  else current = new Lobby(main);
  void current.start();
}

mount(document.body,
  h("header", { class: "top" }, h("a", { href: "#/", class: "brand" }, "Kozyr"),
    h("nav", {}, h("a", { href: "#/" }, "Lobby"), " ", h("a", { href: "#/replay" }, "Replays"))),
  h("main", { id: "main" }));
window.addEventListener("hashchange", route);
route();
