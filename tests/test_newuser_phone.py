"""On the phone (issue 30): /switch finds a person as the terminal does, by a first name."""

from __future__ import annotations

from serve_helpers import log_entries
from test_serve_lark import fake, lark_ws  # noqa: F401 - fixtures, used by name


def test_switch_on_the_phone_resolves_a_first_name(lark_ws, fake):  # noqa: F811
    from fakes import FakeChat
    from test_serve_lark import LarkServed, message_event

    from heartcompass.store.lifecycle import add_person

    add_person(lark_ws, "Bob Stone", "friend")
    add_person(lark_ws, "Bobby", "friend")
    served = LarkServed(lark_ws, fake, FakeChat().enqueue("hey there"))
    served.feed(message_event("/switch bob"))
    fake.wait_texts(1)
    served.feed(message_event("hi Bob"))
    texts = fake.wait_texts(2)
    served.stop()
    assert "Bob Stone" in texts[0] and texts[1] == "hey there", texts
    assert [e.text for e in log_entries(lark_ws, "bob-stone")] == ["hi Bob", "hey there"]
