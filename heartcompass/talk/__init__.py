"""Conversations: chat sessions, burst mode, the coach."""
