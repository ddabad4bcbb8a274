"""The workspace and its history: settings, people, the lock, the user's clock, git and the audit
trail on it (every change a commit; log, diff, undo, restore, sync)."""
