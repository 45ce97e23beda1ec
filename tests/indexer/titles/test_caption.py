"""A court paper's caption: its parties, court and kind read from the first page's lines as court
papers set them, whatever court printed them."""

from __future__ import annotations

from indexer.titles.caption import court_label, court_title, read_caption, stamped_label

TRANSCRIPT = [
    "Official - Subject to Final Review",
    "IN THE SUPREME COURT OF THE UNITED STATES",
    "1",
    "- - - - - - - - - - - - - - - - x MICHAEL A. KNOWLES, WARDEN,",
    "2",
    ":",
    "Petitioner",
    ":",
    "5",
    ": No. 07-1315:",
    "6",
    "v.",
    "7 ALEXANDRE MIRZAYANCE.",
    "8 - - - - - - - - - - - - - - - - x",
    "Washington, D.C.",
    "Tuesday, January 13, 2009",
    "The above-entitled matter came on for oral argument before the Supreme Court of the United States at",
    "APPEARANCES:",
    "CHARLES M. SEVILLA, ESQ., San Diego, Cal.; on behalf",
]


def test_a_court_paper_is_titled_by_its_caption_and_the_heading_that_says_what_it_is() -> None:
    assert court_title(TRANSCRIPT) == "Knowles v. Mirzayance — Oral Argument Transcript"
    complaint = ["UNITED STATES DISTRICT COURT", "NORTHWIND TRADERS, INC., Plaintiff,", "v.", "JANE ROE, Defendant."]
    assert court_title([*complaint, "Case No. 1:31-cv-0042", "COMPLAINT FOR DAMAGES"]) == (
        "Northwind Traders, Inc. v. Roe — Complaint for Damages"
    )
    assert court_title(["Minutes of the Board", "Smith moved v. the motion"]) is None, "no court, no case, no parties"


def test_a_heading_names_the_paper_not_a_word_its_text_uses() -> None:
    notice = [
        "Case 31-0042, Document 1-1, 10/31/2031, Page1 of 2",
        "United States Court of Appeals for the Twelfth Circuit",
        "Short Title: Northwind Trading Company v. Roe",
        "DOCKETING NOTICE",
        "The Court will contact one counsel per party when serving notice or issuing our order.",
    ]
    assert court_title(notice) == "Northwind Trading Company v. Roe — Docketing Notice", "not 'Order' from a sentence"
    motion = ["IN THE UNITED STATES COURT OF APPEALS", "ANN LEE, et al.", "Plaintiffs-Appellees,", "v.", "BO KIM,"]
    motion += ["MOTION TO STAY PROCEEDINGS PENDING DECISION IN", "ALTERNATIVE MOTION TO FILE ANSWERING BRIEF"]
    assert court_title(motion) == "Lee v. Kim — Motion to Stay Proceedings Pending Decision"
    letter = [
        "UNITED STATES COURT OF APPEALS",
        "Re: Case No. 31-0042, Heron Coal Company v. Ann Lee, et al",
        "Dear Counsel:",
    ]
    assert court_title(letter) == "Heron Coal Company v. Lee — Letter", "the case named on a clerk's letter's Re: line"


def test_a_case_the_paper_cites_is_not_its_own() -> None:
    slip = [
        "(Slip Opinion)",
        "OCTOBER TERM, 2031",
        "See United States v. Northwind Timber Co., 200 U. S. 321, 337.",
        "SUPREME COURT OF THE UNITED STATES",
        "HERON REGIONAL WATER DISTRICT v.",
        "PARKER ET AL.",
        "No. 31–889. Argued April 23, 2031",
    ]
    assert court_title(slip) == "Heron Regional Water District v. Parker — Slip Opinion"


def test_a_party_is_the_name_a_caption_sets_apart_not_a_line_beside_it() -> None:
    # Two columns read line by line: a court's place runs on from the line above; a clerk's stamp,
    # a date and a name without a party's setting fall between the "versus" and the second party.
    columns = [
        "In the Court of Appeals Northern District",
        "ANN MARIE LEE,",
        ")",
        "Appellant,",
        "Appeal from the Circuit Court of",
        ")",
        "Heron County, Northland",
        "vs.",
        ")",
        "No. 31-CC0042",
        "STATE OF NORTHLAND,",
        "Respondent.",
    ]
    assert court_title(columns) == "Lee v. State of Northland"
    stamped = ["United States Court of Appeals for the Twelfth Circuit", "Ann St. Pierre,", "No. 31-50498"]
    stamped += ["versus", "March 16, 2031", "Lyle W. Grey", "Clerk", "Plaintiff—Appellant,"]
    stamped += ["Heron Insurance Company; Northwind Life Insurance Company,", "Defendants—Appellees."]
    assert court_title(stamped) == "St. Pierre v. Heron Insurance Company"
    church = ["United States Court of Appeals", "CALVARY CHAPEL OF NORTHLAND,", "Plaintiff, Appellant,", "v."]
    assert (
        court_title([*church, "ANN T. LEE, in her official capacity as Governor,"])
        == "Calvary Chapel of Northland v. Lee"
    )
    heading = ["UNITED STATES DISTRICT COURT", "Case No. 8:31-cv-1261", "NORTHWIND TRADERS, INC.,"]
    heading += ["ORDER GRANTING NORTHWIND TRADERS, INC.'S APPLICATION FOR AN INJUNCTION", "Plaintiff,", "v.", "BO KIM;"]
    assert court_title(heading) == "Northwind Traders, Inc. v. Kim — Order Granting Northwind Traders", (
        "the paper's heading is no party"
    )


def test_a_matter_of_one_party_is_titled_in_re() -> None:
    order = ["UNITED STATES COURT OF APPEALS", "No. 31-800", "In re: ANN P. LEE", "ORDER", "Entered for the Court"]
    assert court_title(order) == "In re Lee — Order"
    mdl = ["IN THE UNITED STATES DISTRICT COURT", "No. MDL 31-02641", "IN RE: Heron Filters Products"]
    mdl += ["Liability Litigation,", "SUGGESTION OF REMAND AND", "TRANSFER ORDER"]
    assert court_title(mdl) == "In re Heron Filters Products Liability Litigation — Transfer Order"
    assert read_caption(["Minutes", "In re: the budget", "Approved"]) is None, "no court and no case number"


def test_margin_numbers_case_labels_and_acronyms_in_a_pleading() -> None:
    pleading = ["UNITED STATES DISTRICT COURT", "11", "HERON BUILDERS COMPANY, INC., a corporation, Plaintiff,", "12"]
    pleading += ["CASE NO.: C 31-02214 SBA", "13", "JOINT STIPULATION AND ORDER EXTENDING DISCOVERY", "Vs.", "14"]
    pleading += ["16TH", "NWT INSURANCE COMPANY,a", "15", "corporation, and DOES 1 through 100,", "Defendants."]
    assert court_title(pleading) == (
        "Heron Builders Company v. NWT Insurance Company — Joint Stipulation and Order Extending Discovery"
    ), "a margin's numbers, a case number's label and the paper's heading are no party; an acronym stays one"


def test_a_court_paper_without_parties_is_named_by_its_heading_court_and_case() -> None:
    form = ["Appeal: 31-2218", "UNITED STATES COURT OF APPEALS FOR THE TWELFTH CIRCUIT APPEARANCE OF COUNSEL FORM"]
    form += ["THE CLERK WILL ENTER MY APPEARANCE IN APPEAL NO. 31-2218", "(party name)"]
    assert court_title(form) is None, "no parties"
    assert court_label(form) == (
        "Appearance of Counsel Form — United States Court of Appeals for the Twelfth Circuit, Appeal No. 31-2218"
    )
    garbled = ["United States Court of Appeals", "No. 31-2400 IN RE:", "For the Twelfth Circuit Northland, 60604"]
    garbled += ["ANN LEE, et al., Plaintiffs-Appellants,", "v.", "Defendant-Appellant.", "ORDER"]
    assert court_label(garbled) == "Order — United States Court of Appeals, No. 31-2400"
    assert court_label(["Minutes of the Board", "ORDER OF BUSINESS"]) is None, "no court"


def test_a_versus_in_a_paper_a_report_or_a_match_makes_no_court_paper() -> None:
    assert court_title(["Technical Report No. 17", "Deep Learning vs. Classical Methods for Denoising"]) is None
    assert court_title(["Patience in Herons", "Fig. 1. Runtime vs. problem size", "Under Grant No. 1234567."]) is None
    assert court_title(["QUARTERLY BUDGET REPORT No. 3", "Actual vs. Budget"]) is None
    assert court_title(["Resolution No. 2031-14", "In re: Adoption of the Annual Budget"]) is None, "no court"
    assert read_caption(["Issue No. 12", "Supreme Court Term in Review", "MEMBERSHIP RENEWAL NOTICE"]) is None


def test_court_names_parties_and_numbers_as_printed() -> None:
    bankrupt = ["UNITED STATES BANKRUPTCY COURT", "In re: ANN MARIE LEE", "Debtor.", "Case No. 31-10234"]
    assert court_title(bankrupt) == "In re Lee"
    pleading = ["5 SUPREME COURT OF THE STATE OF NORTHLAND", "MOTION PICTURE ASSOCIATION OF NORTHLAND,", "Plaintiff,"]
    pleading += ["v.", "BO KIM JR.,", "Defendant.", "Case No. 2:31-CV-01234-ABC", "COMPLAINT FOR DAMAGES"]
    pleading += ["DEMAND FOR JURY TRIAL"]
    assert court_title(pleading) == "Motion Picture Association of Northland v. Kim — Complaint for Damages"
    caption = read_caption(pleading)
    assert caption is not None and caption.court == "Supreme Court of the State of Northland"
    matter = ["SUPREME COURT OF THE STATE OF NORTHLAND", "In the Matter of the Application of HERON CORP.,"]
    assert (
        court_title([*matter, "Petitioner,", "Index No. 654321/2031"])
        == "In the matter of the Application of Heron Corp."
    )
    form = [
        "UNITED STATES COURT OF APPEALS FOR THE TWELFTH CIRCUIT",
        "ENTRY OF APPEARANCE",
        "Case No. 2:31-CV-01234-ABC",
    ]
    assert court_label(form) == (
        "Entry of Appearance — United States Court of Appeals for the Twelfth Circuit, Case No. 2:31-CV-01234-ABC"
    ), "a case's number as printed"


def test_a_caption_that_sets_against_between_the_parties() -> None:
    """New York's courts set "- against -" on a line of its own where others print "v."."""
    lines = ["UNITED STATES DISTRICT COURT", "DISTRICT OF ALASKA", "COLIN HERON,", "- against -", "Plaintiff,"]
    lines += ["NORTHWIND TROOPER, LLC", "Defendant.", "Docket No. 3:31-cv-00227", "COMPLAINT"]
    assert court_title(lines) == "Heron v. Northwind Trooper, LLC — Complaint"
    assert court_title(["The council voted against the motion.", "Minutes of the meeting"]) is None


def test_a_filed_papers_page_without_its_caption_is_named_by_its_stamp_and_the_paper_its_footer_names() -> None:
    from indexer.titles.caption import stamped_label

    page = ["Case 3:31-cv-05711-EMC Document 74-3 Filed 04/12/31 Page 8 of 25", "II. BACKGROUND FACTS"]
    page += ["Defendant is a merchant processing company that sells software.", "MOTION FOR CLASS CERTIFICATION", "3"]
    assert stamped_label(page) == "Motion for Class Certification — Case 3:31-cv-05711-EMC, Document 74-3, page 8"
    letter = ["Case 1:31-cr-00725-JPO Document 191 Filed 05/25/31 Page 1 of 4", "The government's warrants were"]
    assert stamped_label(letter) == "Case 1:31-cr-00725-JPO, Document 191"
    assert stamped_label(["Minutes of the Board", "Page 2 of 4"]) is None


def test_a_heading_in_capitals_names_the_paper_whole_however_long_it_runs() -> None:
    lines = ["IN THE UNITED STATES COURT OF APPEALS", "ANN LEE, et al.", "Plaintiffs-Appellees,", "v.", "BO KIM,"]
    lines.append("MOTION TO STAY PROCEEDINGS PENDING DECISION IN ROE V. DOE, ET AL., AND ALTERNATIVE MOTION FOR TIME")
    assert court_title(lines) == "Lee v. Kim — Motion to Stay Proceedings Pending Decision"
    granted = [*lines[:5], "ORDER GRANTING NORTHWIND, INC. dba NORTHWIND STORES' APPLICATION FOR AN INJUNCTION"]
    assert court_title(granted) == "Lee v. Kim — Order Granting Northwind"


def test_a_court_paper_of_one_party_its_court_between_and_its_report_named_whole() -> None:
    lines = ["Case 31-09232 Doc 49 Filed 04/16/31 Entered 04/16/31 14:07:05 Desc Page 1 of 3", "In re:"]
    lines += ["UNITED STATES BANKRUPTCY COURT NORTHERN DISTRICT OF ILLINOIS", "Marquita A Heron", "Debtor(s)"]
    lines += ["Case No. 31 B 09232", "CHAPTER 13 STANDING TRUSTEE'S FINAL REPORT AND ACCOUNT"]
    assert court_title(lines) == "In re Heron — Chapter 13 Standing Trustee's Final Report and Account"


def test_a_courts_minutes_without_parties_are_named_before_the_courts_name_set_large() -> None:
    from indexer.titles.decide import stated_title

    lines = ["Case 2:31-cr-00595-CAS Document 123 Filed 03/24/31 Page 3 of 26 Page ID #:992"]
    lines += ["UNITED STATES DISTRICT COURT", "CENTRAL DISTRICT OF CALIFORNIA", "REDACTED CRIMINAL MINUTES – GENERAL"]
    items = [
        {"type": "text", "page_idx": 0, "bbox": [100, 20 + 40 * k, 900, 50 + 40 * k], "text": line, "font_size": size}
        for k, (line, size) in enumerate(zip(lines, (8, 12, 16, 11), strict=True))
    ]
    items.append({"type": "text", "page_idx": 0, "bbox": [100, 300, 900, 500], "text": "The government moves. " * 30})
    assert stated_title([], items, "", paged=True) == (
        "Redacted Criminal Minutes – General — United States District Court, Case 2:31-cr-00595-CAS"
    )


def test_a_caption_of_several_cases_names_its_paper_on_the_page_it_runs_on_to() -> None:
    first = [
        "Case: 31-2209 Document: 00116475093 Page: 1",
        "United States Court of Appeals",
        "For the First Circuit",
        "No. 31-2207",
        "NORTHWIND LIFE INSURANCE COMPANY, Plaintiff, Appellant, v. JANE ROE, Defendant, Appellee",
        "No. 31-2208",
        "CONTOSO ASSURANCE CO., Plaintiff, Appellant, v. FABRIKAM, LLC, Defendant,",
    ]
    second = ["Case: 31-2209 Document: 00116475093 Page: 2", "ORDER OF COURT Entered: January 3, 2031"]
    assert court_title(first) == "Northwind Life Insurance Company v. Roe"
    assert court_title(first, second) == "Northwind Life Insurance Company v. Roe — Order of Court"
    assert court_title(first, ["The time for filing the briefs is extended."]) == court_title(first)


def test_a_case_number_ends_where_the_next_word_runs_into_it() -> None:
    lines = ["(Slip Opinion)", "SUPREME COURT OF THE UNITED STATES", "Syllabus", "No. 31-889.Argued April 23, 2031"]
    assert court_label(lines) == "Slip Opinion — Supreme Court of the United States, No. 31-889"


def test_a_sentence_in_capitals_or_citing_a_case_names_no_paper() -> None:
    caption = ["UNITED STATES DISTRICT COURT", "JANE DOE, Plaintiff,", "v.", "CONTOSO CORP., Defendant."]
    notice = "PLEASE TAKE NOTICE that on June 1, 2031, the motion will be heard."
    titled = court_title([*caption, "Case No. 1:31-cv-0042", notice]) or ""
    assert titled.startswith("Doe v. Contoso Corp.") and "Take Notice" not in titled, titled
    report = ["The Supreme Court of Northland", "2031 ANNUAL REPORT", "Filings rose; Case No. 2031-1234 took longest."]
    assert court_label(report) is None, "a court's report that cites a case is no court paper"


def test_filing_stamps_as_several_courts_print_them() -> None:
    for stamp, page in [
        ("Case: 1:31-cv-01234 Document #: 12 Filed: 04/12/31 Page 3 of 5 PageID #:40", "page 3"),
        ("Case 31-12345 Doc 45 Filed 04/12/31 Entered 04/12/31 10:00:00 Desc Main Document Page 3 of 5", "page 3"),
    ]:
        assert stamped_label([stamp, "The witness was sworn."]).endswith(page), stamp
