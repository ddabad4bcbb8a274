"""Whoever is not the owner in a private chat: a group chat gets one short
note, a stranger the pairing code's check (pairing.py) or one short
refusal. Nothing of theirs is logged, sent to a model or committed, and a
group sees nothing of the workspace, not even when the owner writes there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from heartcompass.gateway import replies
from heartcompass.gateway.state import ChannelState

if TYPE_CHECKING:
    from heartcompass.gateway.core import Gateway, Incoming


def group(gw: Gateway, msg: Incoming, state: ChannelState) -> None:
    """One note per group chat: the bot talks in private chats."""
    if state.refuse_once(f"group:{msg.chat}"):
        gw.report(f"{msg.channel}: a message in group chat {msg.chat} (from sender {msg.sender}) "
                  "answered with a note only: the bot talks in private chats")
        gw.send(msg.channel, msg.chat, replies.GROUP)


def stranger(gw: Gateway, msg: Incoming, state: ChannelState) -> None:
    """The pairing code (the sender becomes an owner), or one short refusal."""
    paired, told = gw.pairing.attempt(msg.sender, msg.text)
    if told:
        gw.report(f"{msg.channel}: {told}")
    if paired:
        from heartcompass.store.config_edit import set_config

        key = f"{msg.channel}.allowed_users"
        set_config(gw.ws, key, ",".join([*gw.ws.config.get(key), msg.sender]))
        state.owner_chats[msg.sender] = msg.chat
        gw.report(f"{msg.channel}: paired sender {msg.sender} (added to {key})")
        gw.send(msg.channel, msg.chat, replies.PAIRED)
    elif state.refuse_once(msg.sender):
        gw.report(f"{msg.channel}: refused sender {msg.sender} (not in {msg.channel}.allowed_users)")
        gw.send(msg.channel, msg.chat, replies.REFUSED)
