"""The gateway's small parts, tested as functions: the pairing code against
a guesser (pairing.py), what the bot says (replies.py), /tell's offers kept
across restarts (tell_offers.py), Feishu's message contents (lark.py) and
which chat apps serve uses (runner.py). No app, no thread, no network."""

from __future__ import annotations

import json

import pytest

from heartcompass.errors import HeartCompassError, MissingKeyError
from heartcompass.gateway import replies
from heartcompass.gateway.pairing import IN_ALL, LIFETIME, PER_SENDER, Pairing

CODE = "pair-abc123"


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


# -- pairing ------------------------------------------------------------------------------------------------------

def test_the_pairing_code_pairs_once_typed_with_any_case_and_spaces():
    """The owner may type the code with capitals or a stray space: paired, and the code is then spent."""
    pairing = Pairing(CODE, Clock())
    assert pairing.attempt("5", "  PAIR-ABC123 \n") == (True, None)
    assert pairing.code is None
    assert pairing.attempt("5", CODE) == (False, None)


def test_without_a_code_or_with_ordinary_text_nothing_is_a_guess():
    """A stranger's hello is not a wrong guess: no count, nothing told; serve without --pair never pairs."""
    assert Pairing(None, Clock()).attempt("5", CODE) == (False, None)
    pairing = Pairing(CODE, Clock(), per_sender=1, in_all=1)
    assert pairing.attempt("5", "hello, pair-abc123") == (False, None)
    assert pairing.wrong == {} and pairing.wrong_in_all == 0
    assert pairing.attempt("5", CODE) == (True, None)  # hello counted as no guess: the code still pairs


def test_the_operator_is_told_each_wrong_guess_with_its_counts():
    """Someone guessing is seen on the terminal: which sender, how many of theirs, how many in all."""
    pairing = Pairing(CODE, Clock())
    paired, told = pairing.attempt("5", "pair-000000")
    assert not paired
    assert told == (f"a wrong pairing code from sender 5 (1 of {PER_SENDER} for them; 1 of {IN_ALL} in all): "
                    "someone may be guessing")
    paired, told = pairing.attempt("6", "pair-111111")
    assert told == (f"a wrong pairing code from sender 6 (1 of {PER_SENDER} for them; 2 of {IN_ALL} in all): "
                    "someone may be guessing")
    assert pairing.attempt("5", CODE) == (True, None)  # two wrong guesses in all: the owner still pairs


def test_a_sender_out_of_guesses_is_told_once_and_then_not_even_compared():
    pairing = Pairing(CODE, Clock(), per_sender=2, in_all=10)
    assert "1 of 2 for them;" in pairing.attempt("5", "pair-000000")[1]
    last = pairing.attempt("5", "pair-000001")[1]
    assert last == ("a wrong pairing code from sender 5 (2 of 2 for them, so their codes are no longer "
                    "looked at; 2 of 10 in all): someone may be guessing")
    assert pairing.attempt("5", CODE) == (False, None)   # the right code, from them: not looked at
    assert pairing.wrong == {"5": 2} and pairing.wrong_in_all == 2
    assert pairing.attempt("6", CODE) == (True, None)    # from another account: still the code


def test_enough_wrong_guesses_in_all_withdraw_the_code():
    pairing = Pairing(CODE, Clock(), per_sender=5, in_all=3)
    for sender in ("1", "2"):
        assert "someone may be guessing" in pairing.attempt(sender, "pair-000000")[1]
    paired, told = pairing.attempt("3", "pair-000000")
    assert not paired and pairing.code is None
    assert told == ("3 wrong pairing codes in all (the last from sender 3): someone is guessing, so the code "
                    "is withdrawn; run `heartcompass serve --pair` again")
    assert pairing.attempt("4", CODE) == (False, None)


def test_the_code_lives_ten_minutes_from_the_start():
    """Sent at the last moment of its lifetime it pairs; at the lifetime it has expired, said with the minutes."""
    clock = Clock()
    pairing = Pairing(CODE, clock)
    clock.now += LIFETIME - 0.5
    assert pairing.attempt("5", CODE) == (True, None)
    late = Pairing(CODE, clock)
    clock.now += LIFETIME
    paired, told = late.attempt("5", CODE)
    assert not paired and late.code is None
    assert told == ("the pairing code expired (10 minutes unused) before sender 5 sent one; run "
                    "`heartcompass serve --pair` again for a new code")
    assert late.attempt("5", CODE) == (False, None)  # expired: said once


# -- what the bot says ---------------------------------------------------------------------------------------------

def test_an_error_is_said_with_its_hint_and_a_model_error_says_the_messages_are_kept():
    assert replies.error(HeartCompassError("No such person.", "Try /list.")) == "No such person. Try /list."
    assert replies.error(HeartCompassError("No such person.")) == "No such person."
    down = replies.model_down(HeartCompassError("timeout."))
    assert down == "(No reply: the model cannot be reached: timeout. Your messages are saved; /retry asks again.)"
    assert replies.not_committed(HeartCompassError("a sync stopped.")) == (
        "(Not committed yet: a sync stopped. Your messages are saved in the log and will be committed once that "
        "is fixed.)")
    assert replies.not_answered("alice", HeartCompassError("gone.", "Add them again.")) == (
        "(Your last messages to alice, sent before serve stopped, are saved but cannot be answered: gone. "
        "Add them again.)")


def test_the_list_marks_who_the_chat_talks_to_and_says_how_to_add_people():
    rows = [("alice", "Alice", "friend"), ("xiao-ming", "小明", "family")]
    assert replies.listing(rows, "xiao-ming") == "Alice (alice, friend)\n> 小明 (xiao-ming, family)"
    assert replies.listing(rows, None) == "Alice (alice, friend)\n小明 (xiao-ming, family)"
    assert replies.listing([], None) == "Nobody yet: add people with `heartcompass person add NAME`."
    assert replies.who("小明", "xiao-ming") == "You are talking to 小明 (xiao-ming)."


def test_an_offer_to_add_a_person_names_them_and_what_is_known():
    assert replies.offer_person("王小明", "friend", "her hiking buddy") == (
        "Not in your workspace: 王小明 (her hiking buddy). Add 王小明 as a new person (friend)?")
    assert replies.offer_person("Bob", "stranger", "") == "Not in your workspace: Bob. Add Bob as a new person (stranger)?"


def test_expired_questions_are_listed_with_the_days():
    class Q:
        def __init__(self, person, what):
            self.person, self.what = person, what

    assert replies.expired([Q("alice", "likes tea"), Q("bob", "moved")], 14) == (
        "Expired unanswered after 14 days: alice: likes tea; bob: moved")


def test_the_help_and_the_apps_menu_name_every_command():
    for command in ("switch", "who", "list", "new", "retry", "note", "quote", "tell", "review", "help"):
        assert f"/{command}" in replies.HELP
    assert [name for name, _ in replies.MENU] == ["switch", "who", "list", "new", "retry", "note", "quote", "tell",
                                                  "review", "help"]


# -- /tell's offers, kept across restarts -------------------------------------------------------------------------

def _offers(tmp_path, clock):
    from heartcompass.gateway.tell_offers import TellOffers

    return TellOffers(tmp_path / "serve" / "tell_offers.json", clock=clock)


def test_an_offer_is_kept_with_its_chat_and_time_and_answered_once(tmp_path):
    """The Yes after a restart finds the offer as it was made (its chat, when), and a second press finds nothing."""
    clock = Clock()
    kept = _offers(tmp_path, clock)
    assert kept.add("42", {"kind": "person", "name": "王小明"}) == "t1"
    assert kept.add("42", {"kind": "person", "name": "Bob"}) == "t2"
    on_disk = json.loads((tmp_path / "serve" / "tell_offers.json").read_text(encoding="utf-8"))
    assert on_disk["next"] == 3
    assert on_disk["waiting"]["t1"] == {"kind": "person", "name": "王小明", "chat": "42", "at": 100.0}
    assert "王小明" in (tmp_path / "serve" / "tell_offers.json").read_text(encoding="utf-8")  # as typed, not escaped
    again = _offers(tmp_path, clock)
    assert again.take("t1", "42") == {"kind": "person", "name": "王小明", "chat": "42", "at": 100.0}
    assert _offers(tmp_path, clock).take("t1", "42") is None
    assert _offers(tmp_path, clock).take("t2", "42")["name"] == "Bob"


def test_an_offer_is_answered_only_from_its_own_chat_and_stays_for_it(tmp_path):
    clock = Clock()
    kept = _offers(tmp_path, clock)
    key = kept.add("42", {"kind": "person", "name": "Bob"})
    assert kept.take(key, "7") is None
    assert _offers(tmp_path, clock).take(key, "42")["name"] == "Bob"


def test_an_offer_lasts_three_days_to_the_second(tmp_path):
    from heartcompass.gateway.tell_offers import EXPIRE_DAYS

    clock = Clock()
    kept = _offers(tmp_path, clock)
    first, second = kept.add("42", {"name": "A"}), kept.add("42", {"name": "B"})
    clock.now += EXPIRE_DAYS * 86400
    assert kept.take(first, "42")["name"] == "A"        # exactly three days: still there
    clock.now += 1
    assert kept.take(second, "42") is None              # a second more: gone
    assert json.loads((tmp_path / "serve" / "tell_offers.json").read_text(encoding="utf-8"))["waiting"] == {}


def test_at_most_keep_offers_wait_and_the_oldest_goes_first(tmp_path, monkeypatch):
    from heartcompass.gateway import tell_offers

    monkeypatch.setattr(tell_offers, "KEEP", 2)
    clock = Clock()
    kept = _offers(tmp_path, clock)
    keys = [kept.add("42", {"name": n}) for n in ("A", "B", "C")]
    assert list(kept.waiting) == keys[1:]
    assert _offers(tmp_path, clock).take(keys[0], "42") is None


def test_keep_is_twenty_offers(tmp_path):
    clock = Clock()
    kept = _offers(tmp_path, clock)
    keys = [kept.add("42", {"name": str(n)}) for n in range(21)]
    assert list(kept.waiting) == keys[1:]


def test_the_newest_offer_of_a_chat_is_what_a_bare_yes_answers(tmp_path):
    clock = Clock()
    kept = _offers(tmp_path, clock)
    assert kept.latest("42") is None
    first = kept.add("42", {"name": "A"})
    kept.add("7", {"name": "B"})
    assert kept.latest("42") == first
    second = kept.add("42", {"name": "C"})
    assert kept.latest("42") == second and kept.latest("7") == "t2"


def test_an_offer_without_a_time_is_taken_as_old(tmp_path):
    """A hand-edited offers file whose offer lost its time: dropped as expired, not kept forever."""
    path = tmp_path / "serve" / "tell_offers.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"next": 5, "waiting": {"t4": {"chat": "42", "name": "A"}}}), encoding="utf-8")
    clock = Clock()
    clock.now = 1_000_000.0  # a real clock is far past three days after the epoch
    kept = _offers(tmp_path, clock)
    assert kept.next == 5 and "t4" in kept.waiting
    assert kept.take("t4", "42") is None
    assert kept.add("42", {"name": "B"}) == "t5"       # the counter read back: keys never reused


def test_an_offers_file_not_ours_is_set_aside(tmp_path):
    path = tmp_path / "serve" / "tell_offers.json"
    path.parent.mkdir(parents=True)
    for broken in ('{"next": 2}', '{"next": "x", "waiting": {}}', '{"next": 2, "waiting": [1]}', '[1]'):
        path.write_text(broken, encoding="utf-8")
        kept = _offers(tmp_path, Clock())
        assert kept.waiting == {} and kept.next == 1 and not path.exists()
        assert path.with_suffix(".broken").read_text(encoding="utf-8") == broken


def test_offers_under_the_old_name_are_left_when_the_new_file_exists(tmp_path):
    """An offers file under both names: the current one is read and the old one is not renamed over it."""
    from types import SimpleNamespace

    from heartcompass.gateway.tell_offers import TellOffers, for_workspace

    serve = tmp_path / "serve"
    TellOffers(serve / "proposals.json").add("42", {"name": "old"})
    TellOffers(serve / "tell_offers.json").add("42", {"name": "new"})
    found = for_workspace(SimpleNamespace(state_dir=tmp_path))
    assert [v["name"] for v in found.waiting.values()] == ["new"]
    assert (serve / "proposals.json").is_file()


# -- Feishu's message contents --------------------------------------------------------------------------------------

def test_a_feishu_text_loses_the_bots_mention_and_keeps_chinese():
    from heartcompass.gateway.lark import parse_content

    assert parse_content("text", json.dumps({"text": "@_user_1 你好 "})) == ("你好", None)
    assert parse_content("text", json.dumps({"text": "a @_user_12  b"})) == ("a b", None)
    assert parse_content("text", "") == ("", None)
    assert parse_content("text", "{not json") == ("", None)
    assert parse_content("image", json.dumps({"image_key": "img_1"})) == ("", "img_1")
    assert parse_content("audio", json.dumps({"text": "hi"})) == ("", None)


def test_a_feishu_post_is_its_texts_and_its_first_image():
    """A photo with a caption arrives as a post: the caption's texts joined, the first picture kept."""
    from heartcompass.gateway.lark import parse_content

    post = {"title": "", "content": [[{"tag": "text", "text": "@_user_1 /tell"}, {"tag": "img", "image_key": "k1"}],
                                     [{"tag": "img", "image_key": "k2"}, {"tag": "text", "text": "她搬家了"},
                                      {"tag": "at", "user_id": "x"}]]}
    assert parse_content("post", json.dumps(post)) == ("/tell 她搬家了", "k1")
    localized = {"zh_cn": {"title": "", "content": [[{"tag": "text", "text": "hello"}]]}}
    assert parse_content("post", json.dumps(localized)) == ("hello", None)
    assert parse_content("post", json.dumps({"content": [None, [{"tag": "text"}]]})) == ("", None)
    assert parse_content("post", json.dumps({"zh_cn": "not a post"})) == ("", None)


# -- which chat apps serve uses -------------------------------------------------------------------------------------

@pytest.fixture
def bare(tmp_path, monkeypatch):
    from types import SimpleNamespace

    for var in ("TELEGRAM_BOT_TOKEN", "LARK_APP_ID", "LARK_APP_SECRET"):
        monkeypatch.delenv(var, raising=False)
    return SimpleNamespace(root=tmp_path)


def test_a_chat_apps_credentials_come_from_the_environment_before_dotenv(bare, monkeypatch):
    from heartcompass.gateway import runner

    (bare.root / ".env").write_text("TELEGRAM_BOT_TOKEN=from-dotenv\nLARK_APP_ID=\n", encoding="utf-8")
    assert runner.credential(bare, "TELEGRAM_BOT_TOKEN") == "from-dotenv"
    assert runner.credential(bare, "LARK_APP_ID") is None       # empty is not set
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "from-env")
    assert runner.credential(bare, "TELEGRAM_BOT_TOKEN") == "from-env"


def test_serve_uses_the_apps_whose_credentials_are_all_set(bare, monkeypatch):
    from heartcompass.gateway import runner

    assert runner.configured(bare) == []
    monkeypatch.setenv("LARK_APP_ID", "cli_1")
    assert runner.configured(bare) == []                        # Lark needs its secret too
    monkeypatch.setenv("LARK_APP_SECRET", "s")
    assert runner.configured(bare) == ["lark"] and runner.chosen(bare, None) == ["lark"]
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "t")
    assert runner.configured(bare) == ["telegram", "lark"] and runner.chosen(bare, "telegram") == ["telegram"]


def test_serve_without_an_app_or_with_a_missing_credential_says_what_to_put_where(bare, monkeypatch):
    from heartcompass.gateway import runner

    with pytest.raises(MissingKeyError) as none:
        runner.chosen(bare, None)
    assert none.value.message == "No chat app is configured for serve."
    assert str(bare.root / ".env") in none.value.hint and "LARK_APP_SECRET" in none.value.hint
    monkeypatch.setenv("LARK_APP_ID", "cli_1")
    with pytest.raises(MissingKeyError) as secret:
        runner.chosen(bare, "lark")
    assert secret.value.message == "LARK_APP_SECRET is not set, so serve cannot reach lark."
    assert secret.value.hint == f"Put 'LARK_APP_SECRET=...' in {bare.root / '.env'} (git-ignored), or export it."
    with pytest.raises(HeartCompassError) as unknown:
        runner.chosen(bare, "whatsapp")
    assert unknown.value.message == "Unknown channel 'whatsapp'."
    assert unknown.value.hint == "Use --channel telegram or --channel lark."


def test_a_pairing_code_is_the_prefix_and_six_hex_digits_new_each_time():
    from heartcompass.gateway import runner

    codes = {runner.pair_code() for _ in range(5)}
    assert len(codes) == 5
    assert all(len(c) == 11 and c.startswith("pair-") and int(c[5:], 16) >= 0 for c in codes)


def test_a_question_on_the_phone_shows_the_change_why_and_at_most_five_quotes_each_cut_at_300():
    from heartcompass.memory.questions import Question

    said = [{"day": "2026-12-0{}".format(n), "time": "20:01:30", "speaker": "alice", "text": f"line {n}"}
            for n in range(1, 8)]
    said[0]["text"] = "我们在一起了 " + "x" * 400
    q = Question("alice", "rewrite", {"old": "- Single", "new": "- Dating Bob"}, "a fact rewritten", said,
                 "it changes who she is", "2026-12-07", "q3")
    lines = replies.question(q).split("\n")
    assert lines[:4] == ["alice: a fact rewritten", "- Single", "+ Dating Bob", "Why asked: it changes who she is"]
    assert lines[4] == "“" + ("2026-12-01 20:01 alice: 我们在一起了 " + "x" * 400)[:300] + "”"
    assert lines[5:9] == [f"“2026-12-0{n} 20:01 alice: line {n}”" for n in range(2, 6)]
    assert lines[9:] == ["Apply it? (q3, asked 2026-12-07)"]


def test_a_removal_question_shows_only_what_goes_and_a_question_without_a_reason_says_none():
    from heartcompass.memory.questions import Question

    q = Question("alice", "removal", {"old": "- Lives in Paris"}, "a fact removed", [], "", "2026-12-07", "q4")
    assert replies.question(q) == "alice: a fact removed\n- Lives in Paris\nApply it? (q4, asked 2026-12-07)"
    field = Question("alice", "field", {"field": "relation", "old": "friend", "value": "dating"},
                     "relation: friend → dating", [], "", "2026-12-07", "q5")
    assert replies.question(field) == "alice: relation: friend → dating\nApply it? (q5, asked 2026-12-07)"


def _configured(bare):
    from types import SimpleNamespace

    bare.config = SimpleNamespace(get={"telegram.api_base": "https://api.telegram.example",
                                       "lark.domain": "https://open.feishu.example/"}.get)
    return bare


def test_serve_makes_each_apps_channel_from_its_credentials_and_settings(bare, monkeypatch):
    pytest.importorskip("lark_oapi")
    pytest.importorskip("telegram")
    from heartcompass.gateway import runner

    ws, state, said = _configured(bare), object(), []
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:abc")
    (bare.root / ".env").write_text("LARK_APP_ID=cli_1\nLARK_APP_SECRET=secret-1\n", encoding="utf-8")
    telegram = runner.make_channel(ws, "telegram", state, said.append, 7.5)
    assert (telegram.bot.token, telegram.api_base, telegram.state, telegram.poll_timeout, telegram.report) == (
        "123:abc", "https://api.telegram.example", state, 7.5, said.append)
    lark = runner.make_channel(ws, "lark", state, said.append, 7.5)
    assert (lark.app_id, lark.app_secret, lark.domain, lark.report, lark.connect) == (
        "cli_1", "secret-1", "https://open.feishu.example", said.append, True)


def test_a_channel_made_without_its_credentials_gets_none_made_up(bare, monkeypatch):
    """(serve checks them first, `chosen`): an app refuses the empty id rather than meet an invented one."""
    pytest.importorskip("lark_oapi")
    from heartcompass.gateway import runner

    lark = runner.make_channel(_configured(bare), "lark", None, print, 1.0)
    assert (lark.app_id, lark.app_secret, lark.domain) == ("", "", "https://open.feishu.example")
    pytest.importorskip("telegram")
    from heartcompass.gateway import telegram

    made = []
    monkeypatch.setattr(telegram, "TelegramChannel", lambda token, *rest, **options: made.append(token))
    runner.make_channel(_configured(bare), "telegram", None, print, 1.0)
    assert made == [""]


def test_doctor_ping_asks_each_app_with_its_own_credentials(bare, monkeypatch):
    pytest.importorskip("lark_oapi")
    pytest.importorskip("telegram")
    from heartcompass.gateway import lark, runner, telegram

    asked = []

    async def check_token(token, api_base):
        asked.append(("telegram", token, api_base))
        return "@my_bot"

    monkeypatch.setattr(telegram, "check_token", check_token)
    monkeypatch.setattr(lark, "check_app", lambda *args: asked.append(("lark", *args)) or args[0])
    ws = _configured(bare)
    assert (runner.check_channel(ws, "telegram"), runner.check_channel(ws, "lark")) == ("@my_bot", "")
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:abc")
    monkeypatch.setenv("LARK_APP_ID", "cli_1")
    monkeypatch.setenv("LARK_APP_SECRET", "secret-1")
    assert (runner.check_channel(ws, "telegram"), runner.check_channel(ws, "lark")) == ("@my_bot", "cli_1")
    assert asked == [("telegram", "", "https://api.telegram.example"), ("lark", "", "", "https://open.feishu.example/"),
                     ("telegram", "123:abc", "https://api.telegram.example"),
                     ("lark", "cli_1", "secret-1", "https://open.feishu.example/")]


def test_a_commit_that_fails_at_stop_is_said_in_one_line_with_its_kind():
    """SIGTERM commits what was logged; a failure is one line (the logs stay for the next command), never a
    thread's traceback."""
    import threading
    from types import SimpleNamespace

    from heartcompass.gateway import runner

    def full():
        raise OSError(28, "No space left on device")

    said, committed, stop = [], [], threading.Event()
    stop.set()
    runner._commit_at_stop(SimpleNamespace(commit_all=lambda: committed.append(1)), stop, said.append)
    runner._commit_at_stop(SimpleNamespace(commit_all=full), stop, said.append)
    assert committed == [1] and said == ["not committed at stop: OSError: [Errno 28] No space left on device"]
