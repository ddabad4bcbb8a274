"""What the code knows of the languages users write, in one place: which
characters are CJK (written without spaces, so matched by runs and
bigrams, not words), and the English function words that say nothing of
what a text is about. Each use adds its own few words to these, by name,
where its purpose needs them (relevance: greetings and "remember"; the
evidence check: "user", "told"; a card's keywords: "want", "went")."""

from __future__ import annotations

# Han ideographs: the unified block and extension A, the compatibility forms,
# and extensions B-F (outside the BMP). Character-class text, for [...] in a regex.
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff"
# Kana, Han and Hangul: every script written as runs of characters without spaces.
CJK = "\u3040-\u30ff\uac00-\ud7af" + HAN

FUNCTION_WORDS = frozenset("""
about again all also and any are been but can could did does for from had has have her here hers him his how
into its just more not now our really said she should some such than that the their them then there these they
this those too very was were what when where which who why will with would yes you your yours
""".split())
