"""A title stated by the fields a document opens with: a register's preamble, a memo's subject."""

from __future__ import annotations

from indexer.titles.preamble import preamble_title

REGISTER = [  # a Federal Register page: the section's banner set large, the rule's subject above its fields
    "jbell on DSKJLSW7X2PROD with PROPOSALS",
    "47698",
    "Proposed Rules",
    "This section of the FEDERAL REGISTER contains notices to the public of the proposed issuance of rules.",
    "DEPARTMENT OF TRANSPORTATION Federal Aviation Administration",
    "14 CFR Part 39 [Docket No. FAA–2020–0686; Product Identifier 2019–NM–035–AD]",
    "RIN 2120–AA64",
    "Airworthiness Directives; The Boeing Company Airplanes",
    "AGENCY: Federal Aviation Administration (FAA), DOT.",
    "ACTION: Notice of proposed rulemaking (NPRM).",
    "SUMMARY: The FAA proposes to supersede Airworthiness Directive (AD) 2018–23–51.",
]


def test_a_register_notice_is_titled_by_the_subject_above_its_fields() -> None:
    assert preamble_title(REGISTER) == "Airworthiness Directives; The Boeing Company Airplanes"


def test_a_memo_is_titled_by_its_subject_line() -> None:
    memo = [
        "MEMORANDUM",
        "TO: All staff",
        "FROM: Facilities",
        "DATE: May 5, 2031",
        "SUBJECT: Closing of the north car park",
    ]
    assert preamble_title(memo) == "Closing of the north car park"


def test_a_lone_field_names_nothing() -> None:
    assert preamble_title(["Annual Review of Herons", "Summary: herons wait longer in cold water."]) is None
    assert preamble_title(["Dear Ms Roe,", "Re: your letter of 3 May", "Thank you for writing."]) is None
    assert preamble_title(REGISTER[:8]) is None, "no fields, no subject"
    minutes = ["Team meeting", "Action: Ann to send the counts", "Summary: we agreed", "Attendees: Ann, Bo"]
    assert preamble_title(minutes) is None, "a register's preamble opens with its agency"


def test_a_replys_marks_are_no_part_of_the_subject() -> None:
    memo = ["TO: All staff", "FROM: Facilities", "DATE: May 5, 2031", "SUBJECT: RE: FW: Closing of the car park"]
    assert preamble_title(memo) == "Closing of the car park"
