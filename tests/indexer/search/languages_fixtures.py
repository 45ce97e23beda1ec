"""Documents in Chinese and Japanese, and a small English folder, shared by the language tests."""

from __future__ import annotations

CHINESE = """海港划船俱乐部手册

第一章 俱乐部简介

海港划船俱乐部成立于一九八五年，会员每周在船库集合训练。俱乐部的宗旨是推广划船运动。

第二章 安全须知

第一节 下水之前

下水前每位队员必须穿好救生衣。天气恶劣时教练有权取消训练。

第二节 意外处理

翻船时请抓住船体，等待救生艇。

第三章 装备清单

队员应佩戴太阳镜和遮阳帽，以保护眼睛免受水面强光的伤害。

第四章 会费与财务

今年的会费和比赛报名费超过了全年的开支，俱乐部年底结余一千二百元。
"""

JAPANESE = """港ボート部のしおり

第1章 部の紹介

港ボート部は一九八五年に創立され、部員は毎週艇庫に集まって練習します。

第2章 安全について

水に出る前に、部員は必ずライフジャケットを着用してください。悪天候のときはコーチが練習を中止します。

第3章 持ち物

水面の強い照り返しから目を守るため、サングラスと帽子を着用してください。

第4章 会費と会計

今年は会費と大会参加費が年間の支出を上回り、部は千二百円の黒字で一年を終えました。
"""

# A folder of three short files: every word but the common ones is rare here, "after" too.
NOTES = """# Harbour Rowing Club — Committee Notes

## Meeting of 4 October

The next meeting is scheduled after the regatta.

Present: the captain, the secretary, the treasurer and four members.

## Treasurer's report

Dues, the regatta's entry fees and the barbecue brought in more than the season's expenses: the club closed the year with a surplus of $1,200.

The surplus will go towards a new set of oars.
"""

HANDBOOK = """# Crew Handbook

## Before your first outing

Every crew member reads this part before the first outing.

New members row with a coach for their first four weeks.

## On the water

Crews meet at the boathouse at eight and carry the boats down together.

Boats leave the dock at nine sharp; latecomers help rig the next boat.
"""

EQUIPMENT = """# Equipment List

## Clothing

- Close-fitting top and leggings (loose clothing catches in the slide)
- Wear sunglasses and a peaked cap on bright afternoons: the glare off the water is strong
- A waterproof jacket for the launch

## Kit the club provides

- Oars, boats and life jackets for coxes
- A first-aid kit in the launch
"""
