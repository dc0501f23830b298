"""Which legal name a report is about when no registrant line or 公司简介 says so, the tickers that are its own, and
the short name the report calls it by.

Why synthetic first pages: each case is the shape that misled the reader on a real report — a page label or a
subsidiary printed with its legal form while the company calls itself by its short name everywhere ("Brave Bison"),
a shareholder named beside the company ("Mill Road Capital LLC"), other companies' tickers beside their names (an
investee, a director's other board, a competitor).
"""

from __future__ import annotations

from indexing.identity import is_common_noun, mentions, own_tickers, short_form
from indexing.subjects import subject_from_text

BRAVE = """Annual Report 2022
IFC WITH DESIGN
Brave Bison operates at the intersection of digital media and commerce.
IBC Company
Brave Bison grew revenue. Brave Bison acquired SocialChain. The Board of Brave Bison met ten times.
Best Response Media Limited is a subsidiary. Best Response Media Limited trades as Greenlight.
"""
BRAVE_BODY = BRAVE + "\n".join(["Brave Bison delivered growth in the year."] * 6) + """
Best Response Media Limited was acquired. Best Response Media Limited is registered in England.
Brave Bison Group plc, registered number 03737514.
"""

SWISS = """SWISS WATER DECAFFEINATED COFFEE INC.
2022 ANNUAL REPORT
This discussion of Swiss Water Decaffeinated Coffee Inc. ("Swiss Water" or the "Company") reviews the year.
Swiss Water sells green coffee. Swiss Water operates two plants. Swiss Water Decaffeinated Coffee Inc. is listed.
Mill Road Capital LLC holds 19% of the shares and nominated a director.
www.Swisswater.com https://investor.Swisswater.com TSX: SWP
"""

KELLY = """KELLY PARTNERS GROUP HOLDINGS LIMITED
ABN 25 124 908 363
Kelly Partners Group Holdings Limited shares are listed on the Australian Securities Exchange (ASX code: KPG).
Director since 2017. Other directorships: Galilee Energy Ltd (ASX: GLL); Greatland Gold plc (AIM:GGP).
Kelly Partners Group Holdings Limited grew. Competitors include Alector (NASDAQ: ALEC).
"""


def test_the_short_name_printed_throughout_beats_a_legal_name_printed_once_on_a_page_label() -> None:
    s = subject_from_text(BRAVE, body=BRAVE_BODY)
    assert s.entity == "Brave Bison Group plc", s
    assert "Brave Bison" in s.short_names
    assert not s.other_entities  # a subsidiary named a few times is not a second company the report is about


def test_a_shareholder_named_once_is_not_the_company_nor_a_second_one() -> None:
    s = subject_from_text(SWISS, body=SWISS)
    assert s.entity == "Swiss Water Decaffeinated Coffee Inc."
    assert "Swiss Water" in s.short_names and s.codes == ["SWP"]
    assert not s.other_entities and "MRC" not in s.short_names


def test_the_exchange_code_is_the_companys_and_other_companies_tickers_are_not() -> None:
    s = subject_from_text(KELLY, body=KELLY)
    assert s.entity == "Kelly Partners Group Holdings Limited"  # the whole legal form, not cut after "Holdings"
    assert s.codes == ["KPG"], s.codes
    assert own_tickers(KELLY, ["kelly partners"]) == ["KPG"]


def test_labelled_and_worded_tickers() -> None:
    text = ("Listing AIM Market of the London Stock Exchange (AIM) Ticker: SVE\n"
            "Australian Securities Exchange code: EXR\n"
            "The Company's stock is traded on the New York Stock Exchange (ticker symbol WMK).\n"
            "Kelly Partners Group Holdings Limited (KPG.ASX)\nGalileo Resources Plc (AIM: GLR)\n"
            "close to Sandfire Resources' (ASX:SFR) mine; Prospect Resources Ltd (ASX: PSC)")
    assert own_tickers(text, ["kelly partners", "galileo resources"]) == ["SVE", "EXR", "WMK", "KPG", "GLR"]


def test_mentions_count_names_not_words() -> None:
    text = "Brave Bison grew. BRAVE BISON plc. a brave bison is an animal. B.C. Ventures Limited"
    assert mentions("brave bison", text) == 2
    assert mentions("b c ventures", text) == 1
    assert is_common_noun("parent", "The Parent Company. The parent entity holds the parent's shares.")
    assert is_common_noun("energy", "Energy Ltd")  # a word many names share never names one
    assert not is_common_noun("starvest", "Starvest plc, www.starvest.co.uk, Starvest")


def test_short_form_is_two_distinctive_words_of_a_longer_name() -> None:
    assert short_form("swiss water decaffeinated coffee") == "swiss water"
    assert short_form("brave bison") == ""  # already the whole name
    assert short_form("global water resources") == ""  # "global" is a word many names share
    assert short_form("structural monitoring systems") == "structural monitoring"
