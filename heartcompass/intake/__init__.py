"""What comes in from outside: chat exports, character cards, what you tell, hand edits watched."""
