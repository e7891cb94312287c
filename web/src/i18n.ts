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
  "why.NOT_A_SEAT": "there is no such seat",
  "why.UNKNOWN_COMMAND": "this game has no such move",
  "why.CARD_NOT_PLAYABLE": "that card may not go on the bank now",
  "why.CANNOT_BEAT": "that card does not beat the attacking card",
  "why.CANNOT_THROW_IN": "only a rank already on the table may be thrown in",
  "why.MUST_ATTACK": "you open the bout: play any card",
  "why.NOTHING_TO_BEAT": "there is no card for you to beat",
  "why.NOTHING_TO_TAKE": "only the defender takes, while a card waits to be beaten",
  "why.UNKNOWN_OPTION": "this game has no such option",
  "why.BAD_OPTION_VALUE": "an option's value is not one it allows",
  "why.BAD_PLAYER_COUNT": "this game is not for that many players",
  "why.BAD_FIRST_DEALER": "there is no such first dealer",
  "why.BAD_DECK": "the prearranged deck is not a deck of this game",
  "why.BAD_DICE": "prearranged rolls are numbers 1 to 6",
  "why.BAD_SETUP": "this game cannot be set up that way (it uses no dice)",
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
  "move.passesNoCard": "{name} passes (no card may go on the bank)",
  "move.skipped7": "{name} misses a turn (a 7)",
  "move.outPlace": "{name} is out, place {n}",
  "move.created": "match created: {game}, {n} seat|match created: {game}, {n} seats",
  "move.joined": "{name} takes seat {n}",
  "move.contributed": "{name} adds to the match seed",
  "move.windowClosed": "the contribution window closes",
  "move.gaveNone": "; none from {names}",
  "move.seedRevealed": "the match is over; the server seed is revealed",
  "move.terms": "terms: {clock}",
  "move.started": "{game} starts: {players}",
  "move.dealsFirst": "{name} deals first",
  "move.byLot": " (by lot)",
  "move.dealt": "hand {n}: {name} deals",
  "move.dealtGame": "game {n}: {name} deals",
  "move.bankDealt": "{n} card each; bank {card}, stock {stock}; {name} moves first|{n} cards each; bank {card}, stock {stock}; {name} moves first",
  "move.handEnded": "hand {n} ends: {totals}",
  "move.wonMatch": "{name} wins the match: {totals}",
  "move.settled": "hand {n} ends: {parts}; kitty {kitty}",
  "move.pays": "{name} pays {n}",
  "move.gets": "{name} gets {n}",
  "move.nobodyPays": "nobody pays",
  "move.sixWon": "the match ends: {who} wins with {best}|the match ends: {who} share the win with {best}",
  "move.sixStarted": "{game} for {n} players: deck {deck}, trumps {trumps}",
  "move.fool": "game {n} ends: {name} is the fool",
  "move.drawLimit": "game {n} ends in a draw (bout limit)",
  "move.drawEmpty": "game {n} ends in a draw: nobody holds cards",
  "move.durakOver": "the match is over; won: {who}",
  "move.resigned": "{name} resigns",
  "move.aborted": "{name} aborts the match",
  "move.timedOut": "{name} ran out of time",
  "move.abandoned": "{name} left the table; {claimant} claims the win",
  "move.expired": "the match expired with seats still open",
  // bots' names ("heuristic (bot)" as the server names a bot's seat)
  "name.bot": "(bot)",
  "name.heuristic": "heuristic",
  "name.random": "random",
  // Six Dozens' trump modes (SIX-4), on the board
  "trumps.PERSONAL": "personal",
  "trumps.NONE": "no trumps",
  "trumps.ONE": "one suit",
  "trumps.TWO": "two suits",
  "trumps.SENIOR_JUNIOR": "senior and junior",
  // the replay viewer's verdict (InspectReplayResponse.status)
  "replay.VERIFIED": "Verified",
  "replay.NOT_VERIFIED": "Not verified",
  "replay.UNREADABLE": "Unreadable",
  "replay.serverText": "the server's text, in English",
  "replay.tableText": "The table as text",
  // the games' options (ListGames; docs/rules.md): the name, the help and each choice
  "opt.dix.target": "target",
  "opt.dix.target.help": "DIX-9: the match ends after a hand in which a total reaches this",
  "opt.dix.first_lead": "first lead",
  "opt.dix.first_lead.help": "DIX-4: who leads trick 1 of each hand",
  "opt.dix.first_lead.NON_DEALER": "the dealer's opponent",
  "opt.dix.first_lead.DEALER": "the dealer",
  "opt.dix.tiebreak_tens": "ten-tricks tiebreak",
  "opt.dix.tiebreak_tens.help": "DIX-9: equal totals go to fewer ten-tricks in the last hand, or over the whole match",
  "opt.dix.tiebreak_tens.LAST_HAND": "in the last hand",
  "opt.dix.tiebreak_tens.MATCH": "over the whole match",
  "opt.dix.single_hand": "a single hand",
  "opt.dix.single_hand.help": "DIX-9: the match is one hand whatever the totals",
  "opt.dix.max_hands": "most hands",
  "opt.dix.max_hands.help": "R-5: the match ends after this many hands",
  "opt.six-dozens.deck": "deck",
  "opt.six-dozens.deck.help": "SIX-2: deck size, 8, 7 or 6 cards each",
  "opt.six-dozens.deck.36": "36 cards (6 to ace, 8 each)",
  "opt.six-dozens.deck.32": "32 cards (7 to ace, 7 each)",
  "opt.six-dozens.deck.28": "28 cards (8 to ace, 6 each)",
  "opt.six-dozens.trumps": "trumps",
  "opt.six-dozens.trumps.help": "SIX-4: how trumps work",
  "opt.six-dozens.trumps.PERSONAL": "personal (a suit for each seat)",
  "opt.six-dozens.trumps.NONE": "no trumps",
  "opt.six-dozens.trumps.ONE": "one trump suit",
  "opt.six-dozens.trumps.TWO": "two trump suits",
  "opt.six-dozens.trumps.SENIOR_JUNIOR": "a senior and a junior trump",
  "opt.six-dozens.trump_suits": "trump suits",
  "opt.six-dozens.trump_suits.help": "SIX-4: the trump suits as letters, S spades, H hearts, D diamonds, C clubs (such as SD); unset: S H D C by seat for personal trumps, S for one, S D for two, S senior and D junior",
  "opt.six-dozens.seven": "seven",
  "opt.six-dozens.seven.help": "SIX-8: what a 7 does",
  "opt.six-dozens.seven.SKIP": "the next player loses a turn",
  "opt.six-dozens.seven.NONE": "nothing",
  "opt.six-dozens.dealer": "next dealer",
  "opt.six-dozens.dealer.help": "SIX-13: who deals the next hand",
  "opt.six-dozens.dealer.FIRST_MOVER": "the first mover of the hand before",
  "opt.six-dozens.dealer.LOSER": "the player with the most cards left",
  "opt.six-dozens.dealer.FIRST_OUT": "the player who went out first",
  "opt.six-dozens.dealer.MOST_POINTS": "the highest capital",
  "opt.six-dozens.dealer.FEWEST_POINTS": "the lowest capital",
  "opt.six-dozens.max_hands": "most hands",
  "opt.six-dozens.max_hands.help": "SIX-12, R-5: the match ends after this many hands",
  "opt.six-dozens.final_kitty": "kitty at the end",
  "opt.six-dozens.final_kitty.help": "SIX-12: what happens to a kitty left at the end",
  "opt.six-dozens.final_kitty.DISCARD": "discarded",
  "opt.six-dozens.final_kitty.SPLIT_SOLVENT": "shared by the solvent players",
  "opt.six-dozens.eight_on_trumps": "an 8 on higher trumps",
  "opt.six-dozens.eight_on_trumps.help": "SIX-6(d): an 8 may go on a bank of a higher trump category",
  "opt.durak-dice.deck": "deck",
  "opt.durak-dice.deck.help": "DUR-1: 36 cards (6 to ace) or 52 (2 to ace)",
  "opt.durak-dice.deck.36": "36 cards (6 to ace)",
  "opt.durak-dice.deck.52": "52 cards (2 to ace)",
  "opt.durak-dice.next_first": "first attacker later",
  "opt.durak-dice.next_first.help": "DUR-4: who attacks first in later games: the fool's right or left neighbour",
  "opt.durak-dice.next_first.UNDER_FOOL": "the fool's right neighbour (the fool defends)",
  "opt.durak-dice.next_first.FROM_UNDER_FOOL": "the fool's left neighbour",
  "opt.durak-dice.max_attacks": "attack cards per bout",
  "opt.durak-dice.max_attacks.help": "DUR-7: attack cards per bout, the opening card included (0 = no cap)",
  "opt.durak-dice.games": "games",
  "opt.durak-dice.games.help": "DUR-10: games in the match",
  "opt.durak-dice.max_bouts": "most bouts",
  "opt.durak-dice.max_bouts.help": "R-5, DUR-9: a game that reaches this many bouts is a draw",
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
  "why.NOT_A_SEAT": "такого места нет",
  "why.UNKNOWN_COMMAND": "в этой игре нет такого хода",
  "why.CARD_NOT_PLAYABLE": "эту карту сейчас нельзя положить в банк",
  "why.CANNOT_BEAT": "эта карта не бьёт ту, которой пошли",
  "why.CANNOT_THROW_IN": "подкидывать можно только карту того же достоинства, что уже на столе",
  "why.MUST_ATTACK": "вы начинаете кон: ходите любой картой",
  "why.NOTHING_TO_BEAT": "вам нечего бить",
  "why.NOTHING_TO_TAKE": "брать может только отбивающийся, пока карта не побита",
  "why.UNKNOWN_OPTION": "у этой игры нет такого параметра",
  "why.BAD_OPTION_VALUE": "такое значение параметра не допускается",
  "why.BAD_PLAYER_COUNT": "в эту игру не играют таким числом игроков",
  "why.BAD_FIRST_DEALER": "такого первого сдающего нет",
  "why.BAD_DECK": "заданная колода не подходит для этой игры",
  "why.BAD_DICE": "заданные броски костей — числа от 1 до 6",
  "why.BAD_SETUP": "эту игру так не устроить (в ней нет костей)",
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
  "move.passesNoCard": "{name}: пас (в банк положить нечего)",
  "move.skipped7": "{name} пропускает ход (семёрка)",
  "move.outPlace": "{name} выходит из игры {n}-м",
  "move.created": "партия создана: {game}, {n} место|партия создана: {game}, {n} места|партия создана: {game}, {n} мест",
  "move.joined": "{name} занимает место {n}",
  "move.contributed": "{name} вносит долю в зерно партии",
  "move.windowClosed": "окно взносов закрыто",
  "move.gaveNone": "; без взноса: {names}",
  "move.seedRevealed": "партия окончена; зерно сервера раскрыто",
  "move.terms": "условия: {clock}",
  "move.started": "{game}: начинают {players}",
  "move.dealsFirst": "первым сдаёт {name}",
  "move.byLot": " (по жребию)",
  "move.dealt": "сдача {n}: сдаёт {name}",
  "move.dealtGame": "игра {n}: сдаёт {name}",
  "move.bankDealt": "по {n} карте; в банке {card}, в колоде {stock}; первым ходит {name}|по {n} карты; в банке {card}, в колоде {stock}; первым ходит {name}|по {n} карт; в банке {card}, в колоде {stock}; первым ходит {name}",
  "move.handEnded": "сдача {n} окончена: {totals}",
  "move.wonMatch": "{name} выигрывает партию: {totals}",
  "move.settled": "сдача {n} окончена: {parts}; в копилке {kitty}",
  "move.pays": "{name} платит {n}",
  "move.gets": "{name} получает {n}",
  "move.nobodyPays": "никто не платит",
  "move.sixWon": "партия окончена: побеждает {who} с капиталом {best}|партия окончена: победу делят {who} с капиталом {best}|партия окончена: победу делят {who} с капиталом {best}",
  "move.sixStarted": "{game} на {n} игроков: колода {deck}, козыри: {trumps}",
  "move.fool": "игра {n} окончена: {name} — дурак",
  "move.drawLimit": "игра {n} окончена вничью (предел конов)",
  "move.drawEmpty": "игра {n} окончена вничью: ни у кого нет карт",
  "move.durakOver": "партия окончена; победа: {who}",
  "move.resigned": "{name} сдаётся",
  "move.aborted": "{name} отменяет партию",
  "move.timedOut": "{name}: время вышло",
  "move.abandoned": "{name} покинул стол; {claimant} требует победу",
  "move.expired": "партия истекла: свободные места так и не заняли",
  "name.bot": "(бот)",
  "name.heuristic": "эвристика",
  "name.random": "случайный",
  "trumps.PERSONAL": "личные",
  "trumps.NONE": "без козырей",
  "trumps.ONE": "одна масть",
  "trumps.TWO": "две масти",
  "trumps.SENIOR_JUNIOR": "старший и младший",
  "replay.VERIFIED": "Проверено",
  "replay.NOT_VERIFIED": "Не подтверждено",
  "replay.UNREADABLE": "Не читается",
  "replay.serverText": "текст сервера, по-английски",
  "replay.tableText": "Стол текстом",
  "opt.dix.target": "цель",
  "opt.dix.target.help": "DIX-9: партия кончается после сдачи, в которой чей-то счёт достиг этого числа",
  "opt.dix.first_lead": "первый заход",
  "opt.dix.first_lead.help": "DIX-4: кто заходит на первую взятку каждой сдачи",
  "opt.dix.first_lead.NON_DEALER": "противник сдающего",
  "opt.dix.first_lead.DEALER": "сдающий",
  "opt.dix.tiebreak_tens": "равный счёт по десяткам",
  "opt.dix.tiebreak_tens.help": "DIX-9: при равном счёте побеждает тот, у кого меньше взяток-десяток — в последней сдаче или за всю партию",
  "opt.dix.tiebreak_tens.LAST_HAND": "в последней сдаче",
  "opt.dix.tiebreak_tens.MATCH": "за всю партию",
  "opt.dix.single_hand": "одна сдача",
  "opt.dix.single_hand.help": "DIX-9: партия — одна сдача, каков бы ни был счёт",
  "opt.dix.max_hands": "предел сдач",
  "opt.dix.max_hands.help": "R-5: партия кончается после стольких сдач",
  "opt.six-dozens.deck": "колода",
  "opt.six-dozens.deck.help": "SIX-2: размер колоды — по 8, 7 или 6 карт на руку",
  "opt.six-dozens.deck.36": "36 карт (от шестёрки до туза, по 8)",
  "opt.six-dozens.deck.32": "32 карты (от семёрки до туза, по 7)",
  "opt.six-dozens.deck.28": "28 карт (от восьмёрки до туза, по 6)",
  "opt.six-dozens.trumps": "козыри",
  "opt.six-dozens.trumps.help": "SIX-4: как устроены козыри",
  "opt.six-dozens.trumps.PERSONAL": "личные (у каждого места своя масть)",
  "opt.six-dozens.trumps.NONE": "без козырей",
  "opt.six-dozens.trumps.ONE": "одна козырная масть",
  "opt.six-dozens.trumps.TWO": "две козырные масти",
  "opt.six-dozens.trumps.SENIOR_JUNIOR": "старший и младший козырь",
  "opt.six-dozens.trump_suits": "козырные масти",
  "opt.six-dozens.trump_suits.help": "SIX-4: козырные масти буквами: S пики, H черви, D бубны, C трефы (например, SD); если не задано — S H D C по местам для личных, S для одной, S D для двух, S старший и D младший",
  "opt.six-dozens.seven": "семёрка",
  "opt.six-dozens.seven.help": "SIX-8: что делает семёрка",
  "opt.six-dozens.seven.SKIP": "следующий игрок пропускает ход",
  "opt.six-dozens.seven.NONE": "ничего",
  "opt.six-dozens.dealer": "следующий сдающий",
  "opt.six-dozens.dealer.help": "SIX-13: кто сдаёт следующую сдачу",
  "opt.six-dozens.dealer.FIRST_MOVER": "ходивший первым в прошлой сдаче",
  "opt.six-dozens.dealer.LOSER": "тот, у кого осталось больше всего карт",
  "opt.six-dozens.dealer.FIRST_OUT": "вышедший первым",
  "opt.six-dozens.dealer.MOST_POINTS": "самый большой капитал",
  "opt.six-dozens.dealer.FEWEST_POINTS": "самый маленький капитал",
  "opt.six-dozens.max_hands": "предел сдач",
  "opt.six-dozens.max_hands.help": "SIX-12, R-5: партия кончается после стольких сдач",
  "opt.six-dozens.final_kitty": "копилка в конце",
  "opt.six-dozens.final_kitty.help": "SIX-12: что делать с копилкой, оставшейся в конце партии",
  "opt.six-dozens.final_kitty.DISCARD": "сгорает",
  "opt.six-dozens.final_kitty.SPLIT_SOLVENT": "делится между платёжеспособными",
  "opt.six-dozens.eight_on_trumps": "восьмёрка на старший козырь",
  "opt.six-dozens.eight_on_trumps.help": "SIX-6(d): восьмёрку можно положить на банк более старшей козырной категории",
  "opt.durak-dice.deck": "колода",
  "opt.durak-dice.deck.help": "DUR-1: 36 карт (от шестёрки до туза) или 52 (от двойки до туза)",
  "opt.durak-dice.deck.36": "36 карт (от шестёрки до туза)",
  "opt.durak-dice.deck.52": "52 карты (от двойки до туза)",
  "opt.durak-dice.next_first": "кто ходит первым потом",
  "opt.durak-dice.next_first.help": "DUR-4: кто ходит первым в следующих играх — сосед дурака справа или слева",
  "opt.durak-dice.next_first.UNDER_FOOL": "под дурака (сосед справа; дурак отбивается)",
  "opt.durak-dice.next_first.FROM_UNDER_FOOL": "из-под дурака (сосед слева)",
  "opt.durak-dice.max_attacks": "карт за кон",
  "opt.durak-dice.max_attacks.help": "DUR-7: сколько карт можно сыграть под отбивающегося за кон, считая первую (0 — без предела)",
  "opt.durak-dice.games": "игр",
  "opt.durak-dice.games.help": "DUR-10: сколько игр в партии",
  "opt.durak-dice.max_bouts": "предел конов",
  "opt.durak-dice.max_bouts.help": "R-5, DUR-9: игра, дошедшая до стольких конов, — ничья",
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

// The server's bots by kind (SeatRequest.bot), for a bot's seat named after its bot.
const BOT_WORDS: Record<string, Key> = { heuristic: "name.heuristic", random: "name.random" };

/** A player's name for people. A seat the server named after its bot ("heuristic (bot)", an
 * unnamed bot seat) reads in the page's language ("эвристика (бот)"; a bot kind the catalogue
 * does not name keeps its spec); any other name is shown as given. `bot` is the seat's
 * Player.bot ("" for a person, whose name is never touched); left out (a MatchSummary carries no
 * bots), a name ending in " (bot)" is taken for a bot's. */
export function displayName(name: string, bot?: string): string {
  if (bot === "") return name;
  const m = /^(.+) \(bot\)$/.exec(name);
  if (!m || (bot !== undefined && m[1] !== bot)) return name;
  const kind = BOT_WORDS[m[1]];
  return `${kind ? t(kind) : m[1]} ${t("name.bot")}`;
}

function optionKey(game: string, name: string, part: string): Key | undefined {
  const key = `opt.${game}.${name}${part ? `.${part}` : ""}`;
  return key in EN ? (key as Key) : undefined;
}

/** A game's option (ListGames' OptionSpec.name) named for people in the page's language; the
 * option's own name for one the catalogue does not know. */
export function optionLabel(game: string, name: string): string {
  const key = optionKey(game, name, "");
  return key ? t(key) : name;
}

/** What a game's option does, with its rule's ID, in the page's language; `serverHelp` (the
 * OptionSpec.help ListGames sent, in English) for an option the catalogue does not know. */
export function optionHelp(game: string, name: string, serverHelp = ""): string {
  const key = optionKey(game, name, "help");
  return key ? t(key) : serverHelp;
}

/** One allowed value of a game's option (an OptionSpec choice: "PERSONAL", "36") in words in the
 * page's language; the value itself for one the catalogue does not know. The value sent to the
 * server stays the choice. */
export function choiceLabel(game: string, name: string, value: string): string {
  const key = value === "help" ? undefined : optionKey(game, name, value);
  return key ? t(key) : value;
}

/** Six Dozens' trump mode (SixDozensView.trump_mode, SIX-4) in words; the mode for an unknown one. */
export function trumpModeName(mode: string): string {
  const key = `trumps.${mode}` as Key;
  return key in EN ? t(key) : mode;
}

/** The replay verifier's verdict (InspectReplayResponse.status) in words; the status itself for
 * an unknown one. */
export function verdictName(status: string): string {
  const key = `replay.${status}` as Key;
  return /^[A-Z_]+$/.test(status) && key in EN ? t(key) : status;
}
