"""The sentence that decides a yes/no question (issue 36 item 3): one sentence stating the topic, an "or" list read
as alternatives, hyphenated compounds, hedged risk-factor sentences no evidence, negated ones a "No"."""

from __future__ import annotations

from officeqa.text_tokens import tokenize_for_bm25
from prompts.assembler import Material
from retrieval.answerers.yes_no import _NO_TOPIC
from retrieval.answerers.yes_no_evidence import filled_share, find_evidence, hedged, negated, topic_slots


def _slots(text: str) -> list[frozenset[str]]:
    return topic_slots(text, tokenize_for_bm25, lambda t: t.lower() in _NO_TOPIC)


def _material(text: str, n: int = 0) -> Material:
    return Material(text=text, source=f"s{n}", score=1.0, chunk_id=f"c{n}", document="report.pdf",
                    meta={"doc_id": "d", "path": "/d/report.pdf", "page": n + 1})


def test_an_or_list_is_one_slot_either_word_fills() -> None:
    slots = _slots("Did it mention any mergers or acquisitions in the annual report?")
    assert [s.keys for s in slots] == [frozenset({"merge", "acqui"})]
    assert filled_share(slots, "In March the Group completed the acquisition of Engage Media.", tokenize_for_bm25) == 1


def test_every_other_topic_word_is_a_slot_of_its_own() -> None:
    slots = _slots("Did the company report any changes to its capital structure?")
    assert [s.keys for s in slots][1:] == [frozenset({"capit"}), frozenset({"struc"})]
    assert slots[0].required and {"chang", "amend", "incre"} <= slots[0].keys
    assert filled_share(slots, "In 2022 we amended the terms of our preferred stock and capital structure.",
                        tokenize_for_bm25) == 1
    assert filled_share(slots, "In 2022 we amended the structure of our loan book.", tokenize_for_bm25) == 2 / 3


def test_a_change_asked_about_must_be_stated() -> None:
    """"Any changes to its dividend policy": a sentence stating the policy without a change decides nothing."""
    dividend = _slots("Did it announce any changes to its dividend policy?")
    policy = "In line with this policy, the Company has set a consolidated dividend payout ratio of 40%."
    assert filled_share(dividend, policy, tokenize_for_bm25) == 0
    changed = "The board revised the dividend policy to a payout ratio of 40% from fiscal 2023."
    assert filled_share(dividend, changed, tokenize_for_bm25) == 1


def test_a_slot_weighs_its_rarest_word() -> None:
    """Lacking the rare word of the topic ("buyback") fails; lacking the common one ("plan") may pass."""
    idf = {"share": 1.5, "buyback": 7.3, "plan": 2.0}.get
    slots = _slots("Did it announce a share buyback plan?")
    plan = "A share plan for employees was adopted."
    assert filled_share(slots, plan, tokenize_for_bm25, lambda w: idf(w, 1.0)) < 0.6
    bought = "A buyback of the company's shares was announced to the market in April."
    assert filled_share(slots, bought, tokenize_for_bm25, lambda w: idf(w, 1.0)) > 0.6


def test_a_compound_is_found_with_its_hyphen_squeezed_out() -> None:
    slots = _slots("Did it announce a share buyback plan?")
    sentence = "The on-market share buy-back announced in August continued."
    assert filled_share(slots, sentence, tokenize_for_bm25) >= 2 / 3


def test_a_word_inside_another_fills_no_slot() -> None:
    slots = _slots("Did it mention any mergers or acquisitions?")
    assert filled_share(slots, "In connection with our separation from Emergent we agreed to indemnify it.",
                        tokenize_for_bm25) == 0


def test_hedged_and_negated_sentences() -> None:
    assert hedged("Provisions of our charter could delay or prevent a merger or acquisition of the company.")
    assert not hedged("In 2022 we acquired BioDiscovery for $40 million.")
    assert hedged("Covenants restricting, among other things, mergers, dispositions and acquisitions.")
    slots = _slots("Did it mention any mergers or acquisitions?")
    assert negated(slots, "There were no acquisitions during the year.", tokenize_for_bm25)
    assert not negated(slots, "The acquisition of Purigen closed in July.", tokenize_for_bm25)
    assert negated(_slots("是否提到回购计划？"), "报告期内公司未实施股份回购计划。", tokenize_for_bm25)


def test_a_plain_sentence_is_yes_a_hedged_one_nothing_a_negated_one_no() -> None:
    slots = _slots("Did it mention any mergers or acquisitions?")
    risk = _material("Anti-takeover provisions could discourage a merger or acquisition that holders favour.")
    done = _material("During the year the Group completed two acquisitions in Europe.", 1)
    none = _material("The Company made no acquisitions in fiscal 2022.", 2)
    yes = find_evidence(slots, [risk, done, none], tokenize_for_bm25)
    assert yes is not None and yes.verdict == "yes" and "two acquisitions" in yes.candidate.sentence
    no = find_evidence(slots, [risk, none], tokenize_for_bm25)
    assert no is not None and no.verdict == "no" and no.candidate.material == 1
    assert find_evidence(slots, [risk], tokenize_for_bm25) is None


def test_a_heading_states_nothing() -> None:
    slots = _slots("Did it announce any changes to its dividend policy?")
    assert find_evidence(slots, [_material("Dividend policy")], tokenize_for_bm25) is None
    assert find_evidence(_slots("是否提到回购计划？"), [_material("股份回购计划")], tokenize_for_bm25) is None


def test_words_spread_over_sentences_decide_nothing() -> None:
    slots = _slots("Did ACRES outline any new ESG initiatives?")
    spread = _material("ESG matters are overseen by the board. Several initiatives were funded in the year.")
    assert find_evidence(slots, [spread], tokenize_for_bm25) is None
    stated = _material("In 2022 we launched ESG initiatives focused on energy efficiency of our loan collateral.")
    found = find_evidence(slots, [spread, stated], tokenize_for_bm25)
    assert found is not None and found.verdict == "yes" and found.candidate.material == 1


def test_a_permission_question_is_filled_by_the_rule_that_grants_it() -> None:
    """"可以" asks, it is no topic; "坐" is printed inside "乘坐" although jieba cuts the two texts differently."""
    slots = _slots("出差可以坐飞机吗？")
    assert all("可以" not in s.keys for s in slots)
    assert filled_share(slots, "出差乘坐高铁二等座，八小时以上可乘坐飞机经济舱。", tokenize_for_bm25) == 1
    assert filled_share(slots, "出差乘坐高铁二等座。", tokenize_for_bm25) < 1
