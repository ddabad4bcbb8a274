"""The proposal machinery the gardener and `tell` share. The model never
writes file text: it names lines by id and gives short statements with the
ids of the log entries they rest on; sources are derived from that
evidence, trust is checked against it, and lines the user wrote by hand are
never touched. Nothing here writes files.

- model.py        the Proposal and Compressed the model fills; ProposalError
- schema.py       their JSON schema, tightened to each request's ids
- workbench.py    a person's files in memory: read, render, snapshot, diff; the EventIndex
- presentation.py what the model is shown (the events that matter most)
- trust.py        who may support what: each entry's Source, each statement's Claim, the SUPPORTS table
- evidence.py     whether a statement may stand on the entries (and lines) it cites
- numbers.py      the one reader of amounts (5K, 500.000, five thousand, 五百五) by value
- said_dates.py   "last summer" said on a day: the span of days an entry's phrase can mean
- written_dates.py the dates a text writes out (2023-04-01, 2022年7月, 2019), as spans
- spans.py        spans of days: a year, a month, a season, a weekend
- date_support.py whether a statement's numbers and dates, and an event's date, stand on its entries
- apply.py        each statement judged on its own; the kept ones applied to the workbench
- operations.py   what a kept line (or a Yes) does to the workbench
- verdicts.py     what became of each line: kept, refused (with reasons) or asked
- asking.py       what changes who someone is, as a Question for the user
- fields.py       a profile field or link checked like a fact
- limits.py       the schema's limits, enforced before anything is applied
- compression.py  fit_budget's answer checked like a proposal
- words.py        filler, the words a field needs
- propose.py      the model calls (one correction of the refused lines; room to answer), and fit_budget"""
