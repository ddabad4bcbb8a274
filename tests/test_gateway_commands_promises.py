"""The gateway core's promises, one delivery at a time (gateway/core.py,
commands.py, strangers.py): who may talk, what each slash command says and
does, and what a stranger or a group sees. A recording channel, a clock the
test owns, and the worker run to its end in the test's own thread (the stop
already set: it answers what was received, commits and returns)."""

from __future__ import annotations

import pytest
from fakes import FakeChat
from gateway_core_helpers import Served, Worker
from serve_helpers import log_entries, wait_until

from heartcompass.gateway import replies


@pytest.fixture
def chat(example_ws) -> Served:
    """The example workspace's gateway, owner 42, no worker yet."""
    return Served(example_ws)


def test_help_and_start_show_the_help_also_with_the_bots_name_in_a_group_style_command(chat):
    chat.say("/help")
    chat.say("/start")
    chat.say("/HELP@my_bot")
    assert chat.channel.sent == [replies.HELP] * 3


def test_everything_after_a_commands_first_at_sign_is_the_bots_name(chat):
    """/who@my_bot asks who, and so does a bot name that itself holds an @ (pasted twice): never "Unknown command
    /who@my_bot"."""
    chat.say("/switch alice")
    chat.say("/who@my_bot")
    chat.say("/who@my_bot@my_bot")
    assert chat.channel.sent == ["You are talking to Alice Chen (alice)."] * 3


def test_who_says_nobody_until_a_switch_and_then_the_persons_name(chat):
    chat.say("/who")
    chat.say("/switch Alice")
    chat.say("/who")
    assert chat.channel.sent == [replies.NOBODY, "You are talking to Alice Chen (alice).",
                                   "You are talking to Alice Chen (alice)."]
    assert chat.state.chats == {"42": "alice"} and chat.state.owner_chats == {"42": "42"}


def test_a_switch_needs_a_name_and_an_unknown_one_switches_nothing(chat):
    chat.say("/switch   ")
    chat.say("/switch nobody-here")
    assert chat.channel.sent[0] == "/switch needs a name, e.g. /switch alice."
    assert "nobody-here" in chat.channel.sent[1]
    assert chat.state.chats == {}


def test_the_list_shows_the_users_own_person_by_user_name(chat):
    """`config set user.name 王磊` is enough: the self person still named Me in its profile is listed as 王磊."""
    from heartcompass.store.config_edit import set_config

    set_config(chat.ws, "user.name", "王磊")
    chat.say("/list")
    assert chat.channel.said == [("42", "Alice Chen (alice, friend)\n王磊 (me, self)")]


def test_the_list_marks_the_person_the_chat_talks_to(chat):
    chat.say("/list")
    chat.say("/switch alice")
    chat.say("/list")
    assert chat.channel.sent[0] == "Alice Chen (alice, friend)\nMe (me, self)"
    assert chat.channel.sent[2] == "> Alice Chen (alice, friend)\nMe (me, self)"


def test_an_unknown_command_is_named_short_and_points_to_help(chat):
    chat.say("/frobnicate now")
    chat.say("/" + "x" * 100)
    assert chat.channel.sent == ["Unknown command /frobnicate. /help lists them.",
                                   f"Unknown command /{'x' * 39}. /help lists them."]


@pytest.mark.parametrize("command", ["/new", "/retry", "/note a fact", "/quote their words", "/tell she moved"])
def test_a_persons_command_before_a_switch_asks_who_and_does_nothing(chat, command):
    chat.say(command)
    chat.finish()
    assert chat.channel.sent == [replies.NOBODY]
    assert chat.gw.offers.waiting == {}


def test_a_note_goes_into_the_persons_log_for_the_gardener(chat):
    chat.say("/switch alice")
    chat.say("/note  She moved to Berlin ")
    assert chat.channel.sent[-1] == "Noted: it goes into memory at the next garden."
    assert ("note", "She moved to Berlin") in [(e.speaker, e.text) for e in log_entries(chat.ws, "alice")]


def test_a_quote_is_kept_once_in_voice_and_needs_words(chat):
    chat.say("/switch alice")
    chat.say("/quote")
    chat.say("/quote 到了给我发消息!")
    chat.say("/quote 到了给我发消息!")
    assert chat.channel.sent[1:] == ["/quote needs their words, e.g. /quote see you there!",
                                       "Kept in VOICE.md: an example of how they write.", "Already kept."]
    assert "到了给我发消息!" in (chat.ws.people_dir / "alice" / "VOICE.md").read_text(encoding="utf-8")


def test_tell_needs_what_happened(chat):
    chat.say("/switch alice")
    chat.say("/tell   ")
    chat.finish()
    assert chat.channel.sent[1:] == ["/tell needs what happened, e.g. /tell She moved to Berlin."]


def test_a_new_topic_starts_afresh_and_says_so(chat):
    chat.say("/switch alice")
    chat.say("/new")
    assert chat.channel.sent[-1] == "Fresh start: recent turns are forgotten; memory stays."


def test_a_bare_yes_with_nothing_offered_says_there_is_no_proposal(chat):
    chat.say("/switch alice")
    chat.say("/yes")
    chat.say("/no t9")
    chat.finish()
    assert chat.channel.sent[1:] == [replies.NO_OFFER, replies.NO_OFFER]


def test_a_photo_without_tell_says_how_to_tell_about_it(chat):
    chat.say("/switch alice")
    chat.say("", image=b"\x89PNG")
    chat.say("   ", image=b"\x89PNG")
    assert chat.channel.sent[1:] == [replies.PHOTO, replies.PHOTO]
    assert [e for e in log_entries(chat.ws, "alice") if e.speaker == "me"] == []


def test_an_empty_message_is_ignored(chat):
    chat.say("/switch alice")
    chat.say("   ")
    chat.finish()
    assert chat.channel.sent == ["You are talking to Alice Chen (alice)."]
    assert chat.state.unanswered_chats() == [] and [e for e in log_entries(chat.ws, "alice")
                                                     if e.speaker == "me"] == []


def test_the_owners_words_before_a_switch_ask_who_and_are_not_logged(chat):
    chat.say("hello")
    assert chat.channel.sent == [replies.NOBODY] and chat.state.unanswered_chats() == []


# -- strangers and groups ----------------------------------------------------------------------------------------

def test_a_stranger_is_refused_once_and_nothing_of_theirs_is_kept(chat):
    chat.say("/switch alice", sender="7")
    chat.say("hello?", sender="7")
    chat.say("/help")
    assert chat.channel.said == [("7", replies.REFUSED), ("42", replies.HELP)]
    assert chat.reports == ["telegram: refused sender 7 (not in telegram.allowed_users)"]
    assert chat.state.chats == {} and "7" not in chat.state.owner_chats


def test_each_stranger_is_refused_once_whoever_was_refused_before(chat):
    chat.say("hello?", sender="7")
    chat.say("hello?", sender="8")
    chat.say("again", sender="8")
    assert chat.channel.said == [("7", replies.REFUSED), ("8", replies.REFUSED)]
    assert chat.reports == ["telegram: refused sender 7 (not in telegram.allowed_users)",
                            "telegram: refused sender 8 (not in telegram.allowed_users)"]


def test_a_group_gets_one_note_even_when_the_owner_writes_there(chat):
    chat.say("/list", chat="-100", private=False)
    chat.say("/list", sender="7", chat="-100", private=False)
    chat.say("/list", chat="-200", private=False)
    assert chat.channel.said == [("-100", replies.GROUP), ("-200", replies.GROUP)]
    assert chat.reports[0] == ("telegram: a message in group chat -100 (from sender 42) answered with a note "
                                 "only: the bot talks in private chats")
    assert chat.state.owner_chats == {}


def test_a_button_pressed_outside_the_owners_private_chat_is_a_groups(chat):
    """A button answers only in the presser's own private chat: pressed elsewhere (Feishu says no chat type)."""
    chat.say("/help")
    chat.say(chat="-100", button="t1:yes")
    chat.finish()
    assert chat.channel.said == [("42", replies.HELP), ("-100", replies.GROUP)]


def test_the_pairing_code_makes_the_sender_an_owner(example_ws):
    served = Served(example_ws, owners="", pair="pair-abc123")
    served.say("pair-abc123", sender="7")
    served.say("/who", sender="7")
    assert served.channel.said == [("7", replies.PAIRED), ("7", replies.NOBODY)]
    assert example_ws.config.get("telegram.allowed_users") == ["7"]
    assert served.state.owner_chats == {"7": "7"}
    assert "telegram: paired sender 7 (added to telegram.allowed_users)" in served.reports


def test_a_paired_sender_is_added_beside_the_owners_already_there(example_ws):
    served = Served(example_ws, owners="42", pair="pair-abc123")
    served.say("pair-000000", sender="7")
    served.say("pair-abc123", sender="8")
    assert served.channel.said == [("7", replies.REFUSED), ("8", replies.PAIRED)]
    assert example_ws.config.get("telegram.allowed_users") == ["42", "8"]
    assert served.reports[0].startswith("telegram: a wrong pairing code from sender 7 (1 of 3 for them")


# -- bursts and replies -------------------------------------------------------------------------------------------

def test_a_burst_is_logged_at_once_and_answered_once_as_several_messages_with_typing(example_ws):
    """Each message is in the day log before any model call; the answer's
    messages are sent in order, the typing sign before each, and the chat
    is no longer left for the next serve."""
    model = FakeChat().enqueue("one ||| two")
    served = Served(example_ws, model)
    served.say("/switch alice")
    served.say("在吗")
    served.say(" 有件事 ")
    assert [e.text for e in log_entries(example_ws, "alice") if e.speaker == "me"] == ["在吗", "有件事"]
    assert served.state.unanswered_chats() == [("42", "alice")] and model.purposes == []
    served.finish()
    assert served.channel.sent[1:] == ["one", "two"] and served.channel.typed == ["42", "42"]
    assert model.purposes == ["chat"] and served.state.unanswered_chats() == []
    assert [e.text for e in log_entries(example_ws, "alice")][-2:] == ["one", "two"]


def test_the_model_down_is_said_in_one_line_and_the_messages_stay(example_ws):
    from heartcompass.errors import LLMError

    served = Served(example_ws, FakeChat().enqueue(LLMError("The model did not answer.")))
    served.say("/switch alice")
    served.say("hello?")
    served.finish()
    where, text = served.channel.said[1]
    assert where == "42" and text.startswith("(No reply: the model cannot be reached: ")
    assert "hello?" in [e.text for e in log_entries(example_ws, "alice")]


def test_a_retry_asks_the_model_again_for_the_last_message(example_ws):
    model = FakeChat().enqueue("first answer", "second answer")
    served = Served(example_ws, model)
    served.say("/switch alice")
    served.say("hi")
    served.finish()
    served.say("/retry")
    served.finish()
    assert served.channel.sent[1:] == ["first answer", "second answer"]


def test_a_switch_mid_burst_answers_the_burst_from_the_person_it_was_sent_to(example_ws, monkeypatch):
    from heartcompass.store import lifecycle

    lifecycle.add_person(example_ws, "Bob Stone", "friend")
    model = FakeChat().enqueue("alice answers")
    served = Served(example_ws, model)
    with Worker(served, monkeypatch):
        served.say("/switch alice")
        served.say("are you there?")
        served.say("/switch bob-stone")
        wait_until(lambda: "alice answers" in served.channel.sent)
    assert sorted(served.channel.sent[1:]) == ["You are talking to Bob Stone (bob-stone).", "alice answers"]
    prompt = str(model.request("chat").messages[0].content)
    assert "Alice" in prompt and "Bob Stone" not in prompt   # alice's persona answered what was sent to her
    assert "are you there?" in [e.text for e in log_entries(example_ws, "alice")]
    assert served.state.chats == {"42": "bob-stone"}


def test_what_was_logged_for_a_person_before_a_switch_is_committed_even_with_no_answer_pending(example_ws):
    """A /note to Alice, then /switch to Bob: Alice's log goes into the history (a commit of her own) when serve
    stops, not left uncommitted because the chat now talks to Bob."""
    from conftest import git, subjects

    from heartcompass.store import lifecycle

    lifecycle.add_person(example_ws, "Bob Stone", "friend")
    served = Served(example_ws)
    served.say("/switch alice")
    served.say("/note She moved to Berlin.")
    served.say("/switch bob-stone")
    served.finish()
    assert served.channel.sent[-1] == "You are talking to Bob Stone (bob-stone)."
    assert git(example_ws, "status", "--porcelain") == ""
    assert subjects(example_ws)[0].startswith("chat(alice): 1 message on ")


def test_each_answer_is_committed_with_the_messages_it_answers_even_after_a_switch(example_ws, monkeypatch):
    """The history reads one commit per exchange: a burst to Alice answered after a /switch to Bob is committed
    with Alice's answer, and what was already said to Bob waits for Bob's answer, in Bob's own commit (never a
    commit of Bob's message alone, made by Alice's answer)."""
    from conftest import subjects

    from heartcompass.gateway import core
    from heartcompass.store import lifecycle

    lifecycle.add_person(example_ws, "Bob Stone", "friend")
    committed = []
    real = core.commit_session

    def commit(ws, session, purpose):
        sha = real(ws, session, purpose)
        committed.append((session.person.slug, sha))
        return sha

    monkeypatch.setattr(core, "commit_session", commit)
    served = Served(example_ws, FakeChat().enqueue("alice answers", "bob answers"))
    served.say("/switch alice")
    served.say("are you there?")
    served.say("/switch bob-stone")
    served.say("hi bob")                                  # gathered for Bob: his burst waits for quiet
    with Worker(served, monkeypatch):
        wait_until(lambda: any(slug == "alice" and sha for slug, sha in committed))
        served.gw.flush_burst(served.gw.conversation("telegram", "42"))
        wait_until(lambda: "bob answers" in served.channel.sent and served.gw.idle())
    assert [s.split(" on ")[0] for s in subjects(example_ws)[:2]] == ["chat(bob-stone): 2 messages",
                                                                      "chat(alice): 2 messages"]


def test_a_tell_worked_out_after_a_switch_leaves_the_next_persons_exchange_in_one_commit(example_ws, monkeypatch):
    """A /tell about Alice, then /switch to Bob and a message to him while the tell waits for the worker: the
    tell ends with Alice's commit, and Bob's message waits for Bob's answer, in Bob's own commit (never a commit of
    Bob's message alone, made by Alice's tell)."""
    from conftest import git, subjects

    from heartcompass.store import lifecycle

    lifecycle.add_person(example_ws, "Bob Stone", "friend")
    served = Served(example_ws, FakeChat().enqueue({"summary": "nothing new", "rewritten_facts": []},
                                                   {"people": []}, "bob answers"))
    served.say("/switch alice")
    served.say("/tell She moved to Berlin.")
    served.say("/switch bob-stone")
    served.say("hi bob")                                  # gathered for Bob: his burst waits for quiet
    with Worker(served, monkeypatch):
        wait_until(lambda: any(text.startswith("Nothing to change in the files") for text in served.channel.sent))
        served.gw.flush_burst(served.gw.conversation("telegram", "42"))  # Bob's answer, queued after the tell
        wait_until(lambda: "bob answers" in served.channel.sent and served.gw.idle())
    assert [s.split(" on ")[0] for s in subjects(example_ws)[:2]] == ["chat(bob-stone): 2 messages",
                                                                      "tell(alice): noted, nothing to change"]
    assert git(example_ws, "status", "--porcelain") == ""


# -- an ambiguous /switch -----------------------------------------------------------------------------------------

@pytest.fixture
def two_bobs(example_ws):
    from heartcompass.store import lifecycle

    for name in ("Bob Stone", "Bobby"):
        lifecycle.add_person(example_ws, name, "friend")
    return Served(example_ws)


def test_an_ambiguous_switch_asks_which_one_with_a_button_each_and_switches_nobody(two_bobs):
    two_bobs.say("/switch bo")
    chat, text, choices = two_bobs.channel.asked[0]
    assert chat == "42" and choices == [("Bob Stone", "switch:bob-stone"), ("Bobby", "switch:bobby")]
    assert text == "'bo' could be several people: which one?\nBob Stone: /switch bob-stone\nBobby: /switch bobby"
    assert two_bobs.channel.sent == [] and two_bobs.state.chats == {}
    two_bobs.say(button="switch:bobby")
    assert two_bobs.channel.sent == ["You are talking to Bobby (bobby)."] and two_bobs.state.chats == {"42": "bobby"}


def test_an_ambiguous_switch_where_the_app_takes_no_buttons_still_lists_the_slugs(two_bobs):
    two_bobs.channel.refuse_asking = True
    two_bobs.say("/switch bo")
    assert two_bobs.channel.sent == ["'bo' could be several people: which one?\nBob Stone: /switch bob-stone\n"
                                     "Bobby: /switch bobby"]
    assert two_bobs.reports == ["telegram: could not ask: RuntimeError: no buttons here"]


def test_a_candidate_whose_button_data_is_too_long_for_telegram_is_listed_as_text(example_ws):
    """A button's data holds 64 bytes: a long Chinese name's slug would not fit, so the text lists them all."""
    from heartcompass.gateway.commands import BUTTON_DATA_LIMIT, SWITCH_BUTTON
    from heartcompass.store import lifecycle

    long_name = "b" * (BUTTON_DATA_LIMIT - len(SWITCH_BUTTON) + 1)
    for name in ("b" * (BUTTON_DATA_LIMIT - len(SWITCH_BUTTON)), long_name):
        lifecycle.add_person(example_ws, name, "friend")
    served = Served(example_ws)
    served.say("/switch bbbb")
    slugs = sorted(p.name for p in example_ws.people_dir.iterdir() if p.name.startswith("bbb"))
    if all(len((SWITCH_BUTTON + s).encode()) <= BUTTON_DATA_LIMIT for s in slugs):
        pytest.fail(f"the slugs were shortened: {slugs}")
    assert served.channel.asked == [] and len(served.channel.sent) == 1
    assert all(f"/switch {slug}" in served.channel.sent[0] for slug in slugs)


def test_candidates_whose_button_data_is_exactly_telegrams_limit_get_buttons(example_ws):
    from heartcompass.gateway.commands import BUTTON_DATA_LIMIT, SWITCH_BUTTON
    from heartcompass.store import lifecycle

    room = BUTTON_DATA_LIMIT - len(SWITCH_BUTTON)
    for name in ("b" * room, "b" * (room - 1) + "c"):
        lifecycle.add_person(example_ws, name, "friend")
    served = Served(example_ws)
    served.say("/switch bbbb")
    (chat, _, choices), = served.channel.asked
    assert [len(data.encode()) for _, data in choices] == [BUTTON_DATA_LIMIT] * 2 and served.channel.sent == []


def test_the_candidates_as_text_go_to_the_chat_that_asked(example_ws):
    from heartcompass.store import lifecycle

    for name in ("Bob Stone", "Bobby"):
        lifecycle.add_person(example_ws, name, "friend")
    served = Served(example_ws)
    served.channel.refuse_asking = True
    served.say("/switch bo", sender="42", chat="42")
    assert [chat for chat, _ in served.channel.said] == ["42"]


# -- answers: typed or pressed, and what each says ----------------------------------------------------------------

def _offer_bob(chat) -> str:
    chat.say("/help")
    return chat.gw.offers.add("42", {"kind": "person", "name": "Bob Stone", "relation": "friend"})


@pytest.mark.parametrize("typed", ["/yes {key}:yes", "/yes {key}:", "/yes {key}:no"])
def test_a_typed_yes_with_a_buttons_data_after_it_is_a_yes_never_a_no(chat, typed):
    """The card says "reply /yes t1"; a user who types the button's data (/yes t1:yes) or a stray colon means
    Yes: the command decides, and the offer is never declined by it (the person is added)."""
    key = _offer_bob(chat)
    chat.say(typed.format(key=key))
    chat.finish()
    assert chat.channel.said[-1] == ("42", "Added Bob Stone in people/bob-stone/. /switch bob-stone talks to them.")


def test_a_typed_no_with_a_buttons_data_after_it_is_a_no(chat):
    key = _offer_bob(chat)
    chat.say(f"/no {key}:yes")
    chat.finish()
    assert chat.channel.said[-1] == ("42", "Not added: Bob Stone.")
    assert not (chat.ws.people_dir / "bob-stone").exists() and (chat.ws.people_dir / "alice").is_dir()


def test_a_person_who_cannot_be_added_is_said_in_the_chat_that_answered(chat):
    """The Yes came from chat 42: why nobody was added goes there, not nowhere."""
    key = _offer_bob(chat)
    chat.gw.offers.waiting[key]["name"] = "Alice Chen"   # a person already there
    chat.say(button=f"{key}:yes")
    chat.finish()
    where, text = chat.channel.said[-1]
    assert where == "42" and text.startswith("Not added: ") and "Alice Chen" in text


def test_exactly_five_questions_come_at_once_with_no_more_said_and_a_sixth_is_counted_in_the_chat(example_ws):
    from test_review import mbti_changes

    mbti_changes(example_ws, 0, 5)
    served = Served(example_ws)
    served.say("/review")
    served.finish()
    assert len(served.channel.asked) == 5 and served.channel.sent == []
    mbti_changes(example_ws, 5, 1)
    served.say("/review")
    served.finish()
    assert len(served.channel.asked) == 10
    assert served.channel.said == [("42", "1 more wait: /review again once these are answered.")]


def test_a_yes_that_made_no_commit_names_no_commit(example_ws, monkeypatch):
    """A question applied with nothing for git to commit, a tell written with nothing new: the reply says "-"
    where the commit would be, and the worker goes on (no crash on the missing commit)."""
    from test_review import relation

    from heartcompass.intake import tell
    from heartcompass.memory import review_apply

    q = relation(example_ws)
    monkeypatch.setattr(review_apply, "accept",
                        lambda ws, ident, now, purpose: review_apply.Answer(q, True, "relation: dating"))
    monkeypatch.setattr(tell, "apply_plan", lambda *a, **kw: None)
    served = Served(example_ws, FakeChat().enqueue(
        {"summary": "moving", "rewritten_facts": [{"id": "F1", "text": "Moves to Berlin", "evidence": ["L1"]}]},
        {"people": []}))
    served.say("/switch alice")
    served.say(button="q1:yes")
    served.say("/tell She moves to Berlin")
    served.finish()
    served.say(button="t1:yes")
    served.finish()
    assert served.channel.sent[1] == "Applied and committed (-): relation: dating"
    assert served.channel.sent[-1] == "Written and committed (-)."


def test_a_profile_that_cannot_be_read_is_said_as_such_not_as_the_model_down(example_ws):
    """/tell about a person whose PROFILE.md is broken: the reply names the file's problem (a model that is
    fine is not blamed), and what was told is kept in the log."""
    served = Served(example_ws, FakeChat())
    served.say("/switch alice")
    (example_ws.people_dir / "alice" / "PROFILE.md").write_text("---\nname: [unclosed\n---\n", encoding="utf-8")
    served.say("/tell She moves to Berlin")
    served.finish()
    said = served.channel.sent[-1]
    assert "PROFILE.md" in said and not said.startswith("(No reply: the model cannot be reached")
    assert "She moves to Berlin" in [e.text for e in log_entries(example_ws, "alice")]


def test_who_names_a_person_whose_folder_went_by_the_slug_the_chat_still_holds(chat):
    """people/alice/ archived or renamed by hand while the chat talked to her: /who says the slug it holds."""
    import shutil

    chat.say("/switch alice")
    shutil.rmtree(chat.ws.people_dir / "alice")
    chat.say("/who")
    assert chat.channel.said[-1] == ("42", "You are talking to alice (alice).")
