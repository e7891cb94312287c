// Every string the page shows, in English and Russian: one catalogue. The language comes from
// the browser (navigator.languages) unless the reader picked one (kept in localStorage). Card
// and rule names follow docs/rules.md; the Russian terms are the original texts' (В, Д, К, Т).

export type Lang = "en" | "ru";
const KEY = "kozyr.lang";

const EN = {
  "app.lobby": "Lobby",
  "app.replays": "Replays",
  "app.switch": "Русский",
  "app.switchLabel": "Switch the page to Russian",
  "game.dix": "Dix",
  "game.six-dozens": "Six Dozens",
  "game.durak-dice": "Durak with dice",
  // lobby
  "lobby.mine": "Your matches",
  "lobby.none": "None yet.",
  "lobby.seat": "{game} · {name} (seat {seat})",
  "lobby.replay": "replay",
  "lobby.yourTurn": " · your turn",
  "lobby.open": "Open matches",
  "lobby.yourName": "your name",
  "lobby.yourNameToJoin": "your name to join",
  "lobby.nobody": "nobody yet",
  "lobby.openSeats": "{n} open seat|{n} open seats",
  "lobby.yourTable": "your table",
  "lobby.join": "Join",
  "lobby.watch": "watch",
  "lobby.noOpen": "No match is waiting for players.",
  "lobby.newer": "Newer",
  "lobby.older": "Older",
  "lobby.page": " page {n} ",
  "lobby.refresh": "Refresh",
  "lobby.nameFirst": "Type your name before joining.",
  "lobby.joinOrWatch": "Join or watch",
  "lobby.matchOrLink": "match id or join link",
  "lobby.openButton": "Open",
  "lobby.new": "New match",
  "lobby.replayFile": "Open an exported replay file",
  "lobby.players": "players",
  "lobby.range": " {min}–{max} players · rules {rules}",
  "lobby.seatN": "seat {n}",
  "lobby.openSeat": "open seat (join link)",
  "lobby.clock": "clock",
  "lobby.options": "Options",
  "lobby.delay": "spectator delay",
  "lobby.delayNone": "none",
  "lobby.delayS": "{n} s",
  "lobby.create": "Create a {game} match",
  "lobby.default": "(default)",
  "lobby.derived": "(derived)",
  "bot.heuristic": "bot: heuristic",
  "bot.random": "bot: random",
  "bot.ismcts": "bot: ISMCTS (200 iterations)",
  "status.waiting": "waiting",
  "status.playing": "playing",
  "status.finished": "finished",
  // clocks
  "clock.none": "no clock",
  "clock.decision30": "30 s a decision",
  "clock.fischer": "5 min + 3 s a decision",
  "clock.corr1": "1 day a decision",
  "clock.line": "Clock: {control}",
  "clock.left": " · {left} left",
  "clock.expiry": " · the open seats expire in {left}",
  "clock.perDecision": "{t} a decision",
  "clock.fischerText": "{bank} + {inc} s a decision",
  "clock.days": "{n} day a decision|{n} days a decision",
  "clock.off": "none",
  "clock.of": "{name}'s time",
  "clock.dh": "{d} d {h} h",
  "end.guard": "stopped by the guard (R-5)",
  "end.resigned": "resigned",
  "end.timedOut": "out of time",
  "end.aborted": "aborted (no result)",
  "end.abandoned": "abandoned",
  "end.expired": "expired: the open seats were never filled (no result)",
  "end.normal": "played to the end",
  "end.scores": "Scores: {scores}",
  "why.NOT_YOUR_TURN": "not your turn",
  "why.CARD_NOT_IN_HAND": "that card is not in your hand",
  "why.MUST_FOLLOW_SUIT": "follow suit",
  "why.MUST_BEAT_OR_TAKE": "beat the card or take the table",
  "why.MATCH_OVER": "the match is over",
  "why.TOO_LATE_TO_ABORT": "too late to abort: every seat has decided",
  // table
  "table.loading": "Loading…",
  "table.waiting": "Waiting for players to join",
  "table.finished": "Finished",
  "table.won": "{who} won. ",
  "table.yourTurn": "Your turn",
  "table.toPlay": "{name} to play",
  "table.version": "version {v}",
  "table.reconnecting": " · reconnecting…",
  "table.live": " · live",
  "table.prearranged": " · prearranged deal",
  "table.joinLink": "Join link: ",
  "table.joinLinkLabel": "join link",
  "table.takeSeat": "Take a seat",
  "table.openSeat": "(open seat)",
  "table.you": " (you)",
  "table.held": "{n} card|{n} cards",
  "table.final": "final {n}",
  "table.whatHappened": "what happened",
  "table.replayLink": "Replay and verify this match",
  "table.commitment": "Seed commitment {fingerprint}, signed by key {key}.",
  "table.saveReceipt": "Save the last receipt (entry {v})",
  "table.treeHead": "Transparency log kept: {size} entries, root {root}.",
  "table.keys": "Keys: Tab to a card and Enter, or 1–9 for the n-th playable card; T take, P pass (Durak).",
  "table.hand": "Your hand ({name})",
  "table.yourHand": "your hand",
  "table.spectating": "Spectating",
  "table.notPlayable": " (not playable now)",
  "table.take": "Take the table (T)",
  "table.pass": "Pass (P)",
  "table.resign": "Resign…",
  "table.resignYes": "Yes, resign",
  "table.keepPlaying": "Keep playing",
  "table.abort": "Abort",
  "table.abortTitle": "call the match off before every seat has decided (no result)",
  "table.backs": "{name}: {n} card face down|{name}: {n} cards face down",
  "table.banner": "Match over",
  "table.how": "How it ended: {how}",
  "table.scores": "Scores",
  "table.rematch": "Rematch",
  "table.rematchHint": "the same seats, a new match",
  "table.back": "Back to the lobby",
  "table.refused": "Not now: {why}",
  "table.lastTrick": "Last trick",
  "table.lastBout": "Last bout",
  // board
  "board.hand": "Hand",
  "board.dealer": " · dealer {name}",
  "board.first": " · first {name}",
  "board.trump": "Trump",
  "board.noTrump": "no trump",
  "board.stock": "Stock",
  "board.trick": "Trick",
  "board.lead": " · lead {name}",
  "board.wonBy": " · won by {name}",
  "board.target": "Target",
  "board.bank": "Bank",
  "board.trumps": "Trumps",
  "board.none": "none",
  "board.kitty": "Kitty",
  "board.out": "Out",
  "board.skip": "Skip",
  "board.skipText": "the next seat is skipped (SIX-8)",
  "board.last": "Last",
  "board.game": "Game",
  "board.gameOf": "{n} of {games} · bout {bout} · dealer {name}",
  "board.bout": "Bout",
  "board.attacks": " · {a} attacks {d}",
  "board.noBout": "no bout on the table",
  "board.takenBy": " · taken by {name}",
  "board.beatenOff": " · beaten off",
  "board.discards": "Discards",
  "board.dice": "Dice",
  "board.roll": "{name} rolled {n}",
  "board.seat": "seat {n}",
  "score.dix": "{pts} pts · {tricks} tricks · {tens} tens",
  "score.six": "capital {n}",
  "score.durak": "fool ×{n}",
  // replay
  "replay.title": "Replay viewer",
  "replay.open": "Open an exported replay file (kozyr replay export): ",
  "replay.file": "replay file",
  "replay.whose": "whose view",
  "replay.full": "full table",
  "replay.spectator": "spectator",
  "replay.seat": "seat {n}: {name}",
  "replay.step": "step",
  "replay.report": "Verifier report",
  "replay.first": "first step",
  "replay.prev": "previous step",
  "replay.next": "next step",
  "replay.lastStep": "last step",
  "replay.stepOf": "step {v} of {n}",
  "replay.handOf": "{name}'s hand: ",
  "replay.keys": "Keys: ← and → step through.",
  // cards
  "card.joker": "joker",
  "card.of": "{rank} of {suit}",
  "rank.J": "jack", "rank.Q": "queen", "rank.K": "king", "rank.A": "ace",
  "suit.S": "spades", "suit.H": "hearts", "suit.D": "diamonds", "suit.C": "clubs",
  "move.plays": "{name} plays {card}",
  "move.attacks": "{name} attacks with {card}",
  "move.beats": "{name} beats {attack} with {card}",
  "move.passes": "{name} passes",
  "move.throws": "{name} throws in {card}",
  "move.wins": "{name} wins the trick ({n} pts)",
  "move.out": "{name} is out",
  "move.skipped": "{name} misses a turn",
  "move.covered": "the bank is covered by {card}",
  "move.bankTurned": "the bank card is {card}",
  "move.turnedUp": "{card} is turned up",
  "move.took": "{name} takes {n} card|{name} takes {n} cards",
  "move.discarded": "the bout is beaten off",
  "move.bout": "bout {n}: {a} attacks {d}",
  "rule.unknown": "rule {id}",
};

type Key = keyof typeof EN;

const RU: Record<Key, string> = {
  "app.lobby": "Лобби",
  "app.replays": "Повторы",
  "app.switch": "English",
  "app.switchLabel": "Показать страницу по-английски",
  "game.dix": "Дикс",
  "game.six-dozens": "Шесть дюжин",
  "game.durak-dice": "Дурак с костями",
  "lobby.mine": "Ваши партии",
  "lobby.none": "Пока нет.",
  "lobby.seat": "{game} · {name} (место {seat})",
  "lobby.replay": "повтор",
  "lobby.yourTurn": " · ваш ход",
  "lobby.open": "Открытые партии",
  "lobby.yourName": "ваше имя",
  "lobby.yourNameToJoin": "ваше имя для входа",
  "lobby.nobody": "пока никого",
  "lobby.openSeats": "{n} свободное место|{n} свободных места|{n} свободных мест",
  "lobby.yourTable": "ваш стол",
  "lobby.join": "Сесть",
  "lobby.watch": "смотреть",
  "lobby.noOpen": "Ни одна партия не ждёт игроков.",
  "lobby.newer": "Новее",
  "lobby.older": "Старше",
  "lobby.page": " страница {n} ",
  "lobby.refresh": "Обновить",
  "lobby.nameFirst": "Введите имя, прежде чем сесть.",
  "lobby.joinOrWatch": "Сесть или смотреть",
  "lobby.matchOrLink": "номер партии или ссылка",
  "lobby.openButton": "Открыть",
  "lobby.new": "Новая партия",
  "lobby.replayFile": "Открыть файл повтора",
  "lobby.players": "игроков",
  "lobby.range": " {min}–{max} игроков · правила {rules}",
  "lobby.seatN": "место {n}",
  "lobby.openSeat": "свободное место (по ссылке)",
  "lobby.clock": "часы",
  "lobby.options": "Параметры",
  "lobby.delay": "задержка для зрителей",
  "lobby.delayNone": "нет",
  "lobby.delayS": "{n} с",
  "lobby.create": "Создать партию: {game}",
  "lobby.default": "(по умолчанию)",
  "lobby.derived": "(выводится)",
  "bot.heuristic": "бот: эвристика",
  "bot.random": "бот: случайный",
  "bot.ismcts": "бот: ISMCTS (200 итераций)",
  "status.waiting": "ждёт",
  "status.playing": "идёт",
  "status.finished": "окончена",
  "clock.none": "без часов",
  "clock.decision30": "30 с на ход",
  "clock.fischer": "5 мин + 3 с за ход",
  "clock.corr1": "1 день на ход",
  "clock.line": "Часы: {control}",
  "clock.left": " · осталось {left}",
  "clock.expiry": " · свободные места ждут ещё {left}",
  "clock.perDecision": "{t} на ход",
  "clock.fischerText": "{bank} + {inc} с за ход",
  "clock.days": "{n} день на ход|{n} дня на ход|{n} дней на ход",
  "clock.off": "нет",
  "clock.of": "время: {name}",
  "clock.dh": "{d} д {h} ч",
  "end.guard": "остановлена защитой (R-5)",
  "end.resigned": "сдался",
  "end.timedOut": "время вышло",
  "end.aborted": "отменена (без результата)",
  "end.abandoned": "брошена",
  "end.expired": "истекла: свободные места так и не заняли (без результата)",
  "end.normal": "сыграна до конца",
  "end.scores": "Очки: {scores}",
  "why.NOT_YOUR_TURN": "сейчас не ваш ход",
  "why.CARD_NOT_IN_HAND": "этой карты нет у вас на руках",
  "why.MUST_FOLLOW_SUIT": "надо ходить в масть",
  "why.MUST_BEAT_OR_TAKE": "надо побить карту или взять со стола",
  "why.MATCH_OVER": "партия окончена",
  "why.TOO_LATE_TO_ABORT": "отменять поздно: все уже сделали ход",
  "table.loading": "Загрузка…",
  "table.waiting": "Ждём игроков",
  "table.finished": "Окончена",
  "table.won": "Победа: {who}. ",
  "table.yourTurn": "Ваш ход",
  "table.toPlay": "Ходит {name}",
  "table.version": "версия {v}",
  "table.reconnecting": " · переподключение…",
  "table.live": " · в эфире",
  "table.prearranged": " · заданная раздача",
  "table.joinLink": "Ссылка для входа: ",
  "table.joinLinkLabel": "ссылка для входа",
  "table.takeSeat": "Занять место",
  "table.openSeat": "(свободное место)",
  "table.you": " (вы)",
  "table.held": "{n} карта|{n} карты|{n} карт",
  "table.final": "итог {n}",
  "table.whatHappened": "что произошло",
  "table.replayLink": "Повтор и проверка партии",
  "table.commitment": "Обязательство по зерну {fingerprint}, подписано ключом {key}.",
  "table.saveReceipt": "Сохранить последнюю квитанцию (запись {v})",
  "table.treeHead": "Журнал прозрачности сохранён: {size} записей, корень {root}.",
  "table.keys": "Клавиши: Tab к карте и Enter, или 1–9 — n-я разрешённая карта; T — взять, P — пас (Дурак).",
  "table.hand": "Ваши карты ({name})",
  "table.yourHand": "ваши карты",
  "table.spectating": "Вы зритель",
  "table.notPlayable": " (сейчас нельзя)",
  "table.take": "Взять со стола (T)",
  "table.pass": "Пас (P)",
  "table.resign": "Сдаться…",
  "table.resignYes": "Да, сдаюсь",
  "table.keepPlaying": "Играть дальше",
  "table.abort": "Отменить",
  "table.abortTitle": "отменить партию, пока не все сделали первый ход (без результата)",
  "table.backs": "{name}: {n} карта рубашкой вверх|{name}: {n} карты рубашкой вверх|{name}: {n} карт рубашкой вверх",
  "table.banner": "Партия окончена",
  "table.how": "Как закончилась: {how}",
  "table.scores": "Очки",
  "table.rematch": "Реванш",
  "table.rematchHint": "те же места, новая партия",
  "table.back": "В лобби",
  "table.refused": "Нельзя: {why}",
  "table.lastTrick": "Последняя взятка",
  "table.lastBout": "Последний кон",
  "board.hand": "Сдача",
  "board.dealer": " · сдаёт {name}",
  "board.first": " · первым {name}",
  "board.trump": "Козырь",
  "board.noTrump": "без козыря",
  "board.stock": "Колода",
  "board.trick": "Взятка",
  "board.lead": " · заходит {name}",
  "board.wonBy": " · взял {name}",
  "board.target": "Цель",
  "board.bank": "Банк",
  "board.trumps": "Козыри",
  "board.none": "нет",
  "board.kitty": "Копилка",
  "board.out": "Вышли",
  "board.skip": "Пропуск",
  "board.skipText": "следующий игрок пропускает ход (SIX-8)",
  "board.last": "Последняя",
  "board.game": "Игра",
  "board.gameOf": "{n} из {games} · кон {bout} · сдаёт {name}",
  "board.bout": "Кон",
  "board.attacks": " · {a} ходит под {d}",
  "board.noBout": "на столе нет карт",
  "board.takenBy": " · взял {name}",
  "board.beatenOff": " · отбито",
  "board.discards": "Отбой",
  "board.dice": "Кости",
  "board.roll": "{name}: выпало {n}",
  "board.seat": "место {n}",
  "score.dix": "{pts} очк. · {tricks} взяток · {tens} десяток",
  "score.six": "капитал {n}",
  "score.durak": "дурак ×{n}",
  "replay.title": "Просмотр повтора",
  "replay.open": "Открыть файл повтора (kozyr replay export): ",
  "replay.file": "файл повтора",
  "replay.whose": "чьими глазами",
  "replay.full": "весь стол",
  "replay.spectator": "зритель",
  "replay.seat": "место {n}: {name}",
  "replay.step": "шаг",
  "replay.report": "Отчёт проверки",
  "replay.first": "первый шаг",
  "replay.prev": "предыдущий шаг",
  "replay.next": "следующий шаг",
  "replay.lastStep": "последний шаг",
  "replay.stepOf": "шаг {v} из {n}",
  "replay.handOf": "Карты: {name}: ",
  "replay.keys": "Клавиши: ← и → — по шагам.",
  "card.joker": "джокер",
  "card.of": "{rank} {suit}",
  "rank.J": "валет", "rank.Q": "дама", "rank.K": "король", "rank.A": "туз",
  "suit.S": "пик", "suit.H": "червей", "suit.D": "бубен", "suit.C": "треф",
  "move.plays": "{name} кладёт {card}",
  "move.attacks": "{name} ходит {card}",
  "move.beats": "{name} бьёт {attack} картой {card}",
  "move.passes": "{name}: пас",
  "move.throws": "{name} подкидывает {card}",
  "move.wins": "{name} берёт взятку ({n} очк.)",
  "move.out": "{name} вышел из игры",
  "move.skipped": "{name} пропускает ход",
  "move.covered": "банк закрыт картой {card}",
  "move.bankTurned": "в банке {card}",
  "move.turnedUp": "открыта {card}",
  "move.took": "{name} берёт {n} карту|{name} берёт {n} карты|{name} берёт {n} карт",
  "move.discarded": "кон отбит",
  "move.bout": "кон {n}: {a} ходит под {d}",
  "rule.unknown": "правило {id}",
};

// Number ranks in words (Russian names the card, "десятка"; English keeps the figure).
const RU_RANKS: Record<string, string> = {
  "2": "двойка", "3": "тройка", "4": "четвёрка", "5": "пятёрка", "6": "шестёрка", "7": "семёрка",
  "8": "восьмёрка", "9": "девятка", "10": "десятка",
};

// The rules' titles by ID (docs/rules.md), in both languages.
const RULES: Record<string, [string, string]> = {
  "R-1": ["Every random result comes from the match seed", "Любая случайность — из зерна партии"],
  "R-2": ["The first dealer is chosen by lot", "Первого сдатчика определяет жребий"],
  "R-3": ["Prearranged decks are marked", "Заданные колоды помечены"],
  "R-4": ["Automatic actions", "Автоматические действия"],
  "R-5": ["Every match ends", "Каждая партия заканчивается"],
  "R-6": ["Options", "Параметры"],
  "R-7": ["Ending a match early", "Досрочное окончание партии"],
  "R-8": ["Time controls", "Контроль времени"],
  "R-9": ["Timeout policies", "Что бывает, когда время вышло"],
  "DIX-1": ["Cards", "Карты"], "DIX-2": ["Deal", "Сдача"], "DIX-3": ["Trump and the joker", "Козырь и джокер"],
  "DIX-4": ["Lead", "Заход"], "DIX-5": ["Following suit", "Ход в масть"], "DIX-6": ["Who wins a trick", "Кто берёт взятку"],
  "DIX-7": ["Drawing from the stock", "Добор из прикупа"], "DIX-8": ["Scoring a hand", "Подсчёт очков сдачи"],
  "DIX-9": ["End of the match", "Конец партии"], "DIX-10": ["Forfeit", "Поражение за нарушение"],
  "DIX-11": ["The default decision", "Ход по умолчанию"],
  "SIX-1": ["Card order", "Старшинство карт"], "SIX-2": ["Decks", "Колоды"], "SIX-3": ["Capital and kitty", "Капитал и копилка"],
  "SIX-4": ["Trumps", "Козыри"], "SIX-5": ["Deal", "Сдача"], "SIX-6": ["Which card may go on the bank", "Какую карту можно положить в банк"],
  "SIX-7": ["Who moves first", "Кто ходит первым"], "SIX-8": ["A turn", "Ход"], "SIX-9": ["Going out", "Выход из игры"],
  "SIX-10": ["Checks after every card", "Проверки после каждой карты"], "SIX-11": ["Settlement", "Расчёт"],
  "SIX-12": ["End of the match", "Конец партии"], "SIX-13": ["The next dealer", "Следующий сдатчик"],
  "SIX-14": ["Forfeit", "Поражение за нарушение"], "SIX-15": ["The default decision", "Ход по умолчанию"],
  "DUR-1": ["Cards", "Карты"], "DUR-2": ["Trump", "Козырь"], "DUR-3": ["The dice deal", "Сдача по костям"],
  "DUR-4": ["Who attacks first", "Кто ходит первым"], "DUR-5": ["A bout", "Кон"], "DUR-6": ["Beating", "Как бить"],
  "DUR-7": ["Throwing in", "Подкидывание"], "DUR-8": ["End of a bout", "Конец кона"],
  "DUR-9": ["Out, the fool and a draw", "Выход, дурак и ничья"], "DUR-10": ["The match", "Партия"],
  "DUR-11": ["Forfeit", "Поражение за нарушение"], "DUR-12": ["The default decision", "Ход по умолчанию"],
};

/** Every language the catalogue holds (the tests check both are complete). */
export const CATALOGUE: Record<Lang, Record<Key, string>> = { en: EN, ru: RU };

function detect(): Lang {
  try {
    const kept = localStorage.getItem(KEY);
    if (kept === "en" || kept === "ru") return kept;
  } catch {
    // storage may be off: fall back to the browser's languages
  }
  const langs = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const l of langs) {
    if (/^ru\b/i.test(l)) return "ru";
    if (/^en\b/i.test(l)) return "en";
  }
  return "en";
}

let current: Lang = detect();

/** The page's language now. */
export function lang(): Lang {
  return current;
}

/** Pick a language (kept for the next visit). */
export function setLang(l: Lang): void {
  current = l;
  try {
    localStorage.setItem(KEY, l);
  } catch {
    // not kept: this visit only
  }
  document.documentElement.lang = l;
}

function plural(forms: string[], n: number): string {
  if (forms.length === 1) return forms[0];
  if (current === "ru") {
    const [m10, m100] = [n % 10, n % 100];
    const i = m10 === 1 && m100 !== 11 ? 0 : m10 >= 2 && m10 <= 4 && (m100 < 12 || m100 > 14) ? 1 : 2;
    return forms[Math.min(i, forms.length - 1)];
  }
  return forms[n === 1 ? 0 : 1];
}

/** A catalogue string with its {placeholders} filled; `n` picks the plural form ("a|b|c"). */
export function t(key: Key, vars: Record<string, string | number | bigint> = {}): string {
  const text = CATALOGUE[current][key];
  const n = vars.n === undefined ? 1 : Number(vars.n);
  return plural(text.split("|"), n).replace(/\{(\w+)\}/g, (_, k: string) => String(vars[k] ?? `{${k}}`));
}

/** A game's title. */
export function gameTitle(game: string): string {
  const key = `game.${game}` as Key;
  return key in EN ? t(key) : game;
}

/** A card's name in words ("10 of hearts", "десятка червей"). */
export function cardName(code: string): string {
  if (code === "JK") return t("card.joker");
  const suit = code.slice(-1);
  const rank = code.slice(0, -1);
  if (!"SHDC".includes(suit) || !suit) return code;
  const face = `rank.${rank}` as Key;
  const rankName = face in EN ? t(face) : current === "ru" ? RU_RANKS[rank] ?? rank : rank;
  return t("card.of", { rank: rankName, suit: t(`suit.${suit}` as Key) });
}

/** A refusal's ErrorInfo reason in words, or "" when the catalogue has none for it. */
export function reasonText(code: string): string {
  const key = `why.${code}` as Key;
  return key in EN ? t(key) : "";
}

/** A rule in words: "DIX-5 — Following suit". */
export function ruleName(id: string): string {
  const titles = RULES[id];
  return titles ? `${id} — ${titles[current === "ru" ? 1 : 0]}` : t("rule.unknown", { id });
}
