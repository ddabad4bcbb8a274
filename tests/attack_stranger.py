"""The hostile tour's cases against a stranger (issue 31): the phone bot
(pairing guessed, a group, kill -9 mid-burst, SIGTERM while the Bot API
hangs, a proxy's HTML page), the programs a repository's config names, an
orphan branch, years no chat can have, and benchmarks/locomo.py's bad input.
Registered into tests/attack_run.py's list (STRANGER_CASES); each takes its
Trial. The bot runs as a real `heartcompass serve` against fake_telegram.py."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from fake_telegram import TOKEN, FakeTelegram

ROOT = Path(__file__).resolve().parents[1]


def _wait(predicate, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


class _Bot:
    """A real `heartcompass serve` of the trial's workspace against a fake Bot API."""

    def __init__(self, t, *args: str, quiet: str = "0.3", owners: str = "42"):
        self.t, self.fake = t, FakeTelegram()
        for key, value in (("telegram.api_base", self.fake.base), ("serve.quiet_seconds", quiet),
                           ("chat.reply_delay", "0,0"), ("telegram.allowed_users", owners)):
            t.hc("config", "set", key, value)
        (t.root / ".env").write_text(f"TELEGRAM_BOT_TOKEN={TOKEN}\n", encoding="utf-8")
        self.err_path = t.base / f"serve-{time.monotonic_ns()}.err"
        self.err = self.err_path.open("w", encoding="utf-8")
        self.proc = subprocess.Popen([sys.executable, "-m", "heartcompass", "--workspace", str(t.root), "serve",
                                      *args], env=t.env, stdout=subprocess.PIPE, stderr=self.err, text=True)
        self.code = self.proc.stdout.readline().split("account: ", 1)[-1].split()[0] if "--pair" in args else ""
        self.fake.wait_for(lambda: self.fake.polls > 0, timeout=60)

    def end(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(90)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = -9
        self.err.close()
        self.t.outputs.append(self.stderr())
        self.fake.sends_open.set()
        self.fake.close()
        return code

    def stderr(self) -> str:
        return self.err_path.read_text(encoding="utf-8", errors="replace")


def _owners(t) -> str:
    text = (t.root / "heartcompass.toml").read_text(encoding="utf-8")
    return next((line for line in text.splitlines() if line.strip().startswith("allowed_users")), "")


def pairing_guessed_by_200_accounts(t) -> list[str]:
    bot = _Bot(t, "--pair", owners="")
    try:
        for user in range(1000, 1200):
            bot.fake.message(f"pair-{user:06x}", user=user)
        bot.fake.wait_for(lambda: len(bot.fake.calls("sendMessage")) >= 200, timeout=120)
        bot.fake.message(bot.code, user=5)
        bot.fake.wait_for(lambda: bot.fake.texts(chat=5), timeout=60)
    finally:
        bot.end()
    problems = []
    if "5" in _owners(t):
        problems.append("the real code still paired an account after 200 wrong guesses")
    if "someone is guessing" not in bot.stderr():
        problems.append("the terminal was not told that someone is guessing")
    return problems


def a_group_chat_is_told_nothing(t) -> list[str]:
    bot = _Bot(t)
    try:
        for text in ("/list", "/switch alice", "/who", "hello group"):
            bot.fake.message(text, user=42, chat=-100777)
        bot.fake.message("/list")
        bot.fake.wait_for(lambda: bot.fake.texts(chat=42), timeout=60)
        bot.fake.wait_for(lambda: bot.fake.polls > 8, timeout=60)
    finally:
        bot.end()
    group = bot.fake.texts(chat=-100777)
    problems = [f"the group was sent: {text[:100]}" for text in group if "Alice" in text or "alice" in text]
    if len(group) != 1:
        problems.append(f"the group got {len(group)} messages, expected one short note")
    if "hello group" in t.log_text("alice"):
        problems.append("a group message was logged")
    return problems


def kill_9_mid_burst_then_serve_again(t) -> list[str]:
    bot = _Bot(t, quiet="600")
    bot.fake.message("/switch alice")
    bot.fake.wait_for(lambda: bot.fake.texts(), timeout=60)
    for n in range(30):
        bot.fake.message(f"burst message {n} 第{n}条")
    logged = _wait(lambda: t.log_text("alice").count("burst message") == 30)
    bot.end(signal.SIGKILL)
    if not logged:
        return ["the 30 messages were not logged before the kill"]
    t.hc("config", "set", "serve.quiet_seconds", "0.3")
    again = _Bot(t)
    try:
        answered = _wait(lambda: len(again.fake.texts()) >= 1, timeout=90)
        committed = _wait(lambda: "burst message 29" in t.git("log", "-p", "--", "people/alice/logs"), timeout=60)
    finally:
        again.end()
    problems = [] if answered else ["the next serve neither answered nor said it could not"]
    if not committed:
        problems.append("the next serve did not commit what the killed one logged")
    if t.git("status", "--porcelain", "--", "people").strip():
        problems.append("left uncommitted: " + t.git("status", "--porcelain")[:300])
    return problems


def sigterm_while_the_bot_api_hangs(t) -> list[str]:
    bot = _Bot(t)
    try:
        bot.fake.message("/switch alice")
        bot.fake.wait_for(lambda: bot.fake.texts(), timeout=60)
        bot.fake.sends_open.clear()             # every call to the Bot API now hangs (a slow API, 8 s and more)
        bot.fake.message("just before SIGTERM 关机前")
        bot.fake.wait_for(lambda: bot.fake.held, timeout=60)
        bot.proc.send_signal(signal.SIGTERM)
        committed = _wait(lambda: "just before SIGTERM" in t.git("log", "-p", "--", "people/alice/logs"), 30)
    finally:
        bot.fake.sends_open.set()
        code = bot.end()
    problems = [] if committed else ["SIGTERM did not commit the logged message while the API hung"]
    return problems + ([f"serve exited {code}"] if code != 0 else [])


def getupdates_answers_html(t) -> list[str]:
    bot = _Bot(t)
    bot.fake.html_polls = 3
    try:
        bot.fake.wait_for(lambda: bot.fake.html_polls == 0, timeout=90)  # three proxy pages, then the API again
        bot.fake.message("/switch alice")
        bot.fake.wait_for(lambda: bot.fake.texts(), timeout=90)
    finally:
        bot.end()
    return [] if "not the Bot API's JSON" in bot.stderr() else ["the HTML answer was not named: " + bot.stderr()[-300:]]


def reading_commands_run_no_programs(t) -> list[str]:
    marks = t.base / "marks"
    marks.mkdir()
    prog = t.base / "prog.sh"
    prog.write_text(f'#!/bin/sh\ntouch "{marks}/$1"\ncat\n')
    prog.chmod(0o755)
    hooks = t.base / "hooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text(f'#!/bin/sh\ntouch "{marks}/pre-commit"\n')
    (hooks / "pre-commit").chmod(0o755)
    for key, value in (("core.fsmonitor", f"{prog} fsmonitor"), ("core.hooksPath", str(hooks)),
                       ("diff.evil.textconv", f"{prog} textconv"), ("filter.evil.clean", f"{prog} clean"),
                       ("filter.evil.smudge", f"{prog} smudge")):
        t.git("config", key, value)
    (t.root / ".git" / "info").mkdir(exist_ok=True)
    (t.root / ".git" / "info" / "attributes").write_text("*.md diff=evil filter=evil\n", encoding="utf-8")
    profile = t.root / "people" / "bob" / "PROFILE.md"
    profile.write_text(profile.read_text(encoding="utf-8") + "\nA hand line.\n", encoding="utf-8")
    t.hc("log")
    t.hc("diff", "bob")
    t.hc("doctor", check=False)
    ran = sorted(p.name for p in marks.iterdir())
    return [f"a command that only reads ran the user's programs: {ran}"] if ran else []


def orphan_branch(t) -> list[str]:
    t.git("checkout", "-q", "--orphan", "elsewhere")
    problems = []
    proc = t.hc("chat", "alice", "-m", "typed on the orphan", check=False)
    if proc.returncode == 0 or "git checkout main" not in proc.stdout + proc.stderr:
        problems.append("chat on an orphan branch was not refused: " + (proc.stdout + proc.stderr)[:300])
    if "typed on the orphan" not in t.log_text("alice"):
        problems.append("the typed message was lost")
    if t.git("branch", "--list", "elsewhere").strip():
        problems.append("a commit was made on the orphan branch")
    t.git("checkout", "-q", "main")
    t.hc("chat", "alice", "-m", "back on main")
    if "typed on the orphan" not in t.git("log", "-p", "--", "people/alice/logs"):
        problems.append("the message typed on the orphan was never committed")
    hand = [s for s in t.git("log", "--format=%s").splitlines() if s.startswith("edit(")]
    return problems + ([f"our lines were committed as hand edits: {hand}"] if hand else [])


def whatsapp_year_0001(t) -> list[str]:
    export = t.base / "chat.txt"
    export.write_text("08/05/2023, 13:56 - Alice Chen: hi\n01/01/0001, 10:00 - Alice Chen: from year one\n",
                      encoding="utf-8")
    proc = t.hc("import", "alice", str(export), "--me", "Lei", check=False)
    problems = []
    if proc.returncode == 0 or "chat.txt:2" not in proc.stdout + proc.stderr:
        problems.append("a year-1 line was not refused at its line: " + (proc.stdout + proc.stderr)[:300])
    if (t.root / "people" / "alice" / "logs" / "2001-01-01.md").exists() or "from year one" in t.log_text("alice"):
        problems.append("the year-1 line was imported")
    return problems


def _locomo(t, data: Path, *extra: str) -> subprocess.CompletedProcess:
    url = f"http://127.0.0.1:{t.stub_port}/v1"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "locomo.py"), str(data), "--base-url", url,
                           "--model", "stub", "--out", str(t.base / "locomo-out"), *extra],
                          env=t.env, capture_output=True, text=True, timeout=600)
    t.outputs.append(proc.stdout + proc.stderr)
    return proc


def locomo_bad_files(t) -> list[str]:
    problems = []
    mini = json.loads((ROOT / "tests" / "fixtures" / "locomo_mini.json").read_text(encoding="utf-8"))
    cases = {"nested": ("[" * 100_000 + "]" * 100_000, "nested too deeply")}
    for name, category in (("category_2_7", 2.7), ("category_true", True)):
        bad = json.loads(json.dumps(mini))
        bad[0]["qa"][0]["category"] = category
        cases[name] = (json.dumps(bad), "whole number")
    far = json.loads(json.dumps(mini))
    far[0]["conversation"]["session_1_date_time"] = "1:56 pm on 8 May, 99999"
    cases["year_99999"] = (json.dumps(far), "a year from 1970")
    for name, (text, words) in cases.items():
        data = t.base / f"{name}.json"
        data.write_text(text, encoding="utf-8")
        proc = _locomo(t, data)
        if proc.returncode == 0 or words not in proc.stderr:
            problems.append(f"{name}: not refused with its reason: {proc.stderr[-300:]}")
    return problems


def locomo_data_changed_under_the_same_out(t) -> list[str]:
    data = t.base / "data.json"
    data.write_bytes((ROOT / "tests" / "fixtures" / "locomo_mini.json").read_bytes())
    first = _locomo(t, data, "--conversations", "1", "--questions", "1")
    if first.returncode != 0:
        return ["setup: the first run failed: " + first.stderr[-300:]]
    data.write_text(data.read_text(encoding="utf-8").replace("Priya", "Pria"), encoding="utf-8")
    second = _locomo(t, data, "--conversations", "1", "--questions", "1")
    if second.returncode == 0 or "is not the data file" not in second.stderr:
        return ["a changed data file under the same --out was not refused: " + second.stderr[-300:]]
    return []


STRANGER_CASES = [pairing_guessed_by_200_accounts, a_group_chat_is_told_nothing, kill_9_mid_burst_then_serve_again,
                  sigterm_while_the_bot_api_hangs, getupdates_answers_html, reading_commands_run_no_programs,
                  orphan_branch, whatsapp_year_0001, locomo_bad_files, locomo_data_changed_under_the_same_out]
