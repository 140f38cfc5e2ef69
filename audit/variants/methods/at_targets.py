"""The stereotype words the AT reference code debiases: its default target words.

kanekomasahiro/context-debias, `data/stereotype.txt` at commit e8cd379 (unchanged since
the repository's first commit), the `--stereotypes` list of `script/preprocess.sh`: 168
words, in the file's order, with a stereotypical but no definitional gender
(occupations such as nurse, secretary, housekeeper, receptionist, librarian, carpenter
and mechanic, and other words such as pretty, strong, cooking or football).
MIT License, Copyright (c) 2021 Masahiro Kaneko.

The reference's rule, which `audit.variants.methods.at` follows: a sentence with any
attribute (gender) word is an attribute sentence, whatever else it holds; a sentence with
none and with one of these words is a target sentence. So a listed word that is also an
attribute word (tailor and waiter are in the gender lists) only ever marks attribute
sentences.
"""

from __future__ import annotations

_WORDS = """
aerobics adventurer apparel aggressive assistant tycoon baker warrior bathing
ambitious beautiful trucker beauty welder blonde strong bookkeeper terrorist ca
soldier cashier astronomer chatty sniper cheerleader skipper cheerleading banker
clerk baseball cocktail sergeant cooking bodyguard counselor boss crafting boxer
cute cabbie dancer captain educator cardiologist emotional carpenter flirt ceo
flirtatious chairperson flower chancellor gossip chef graceful colonel hairdresser
commander hairdryer conductor homemaker police hooker custodian housekeeper dentist
housekeepers detective housework diplomat hula doctor indoor driving jealousy
drummer jewelry economist kawaii electrician laundering engineer librarian
engineering librarians entrepreneur lotion financier lovely firefighter marvelous
footballer mirror gambler moisturizer gamer nanny gangster neat geek nurse geeks
nursery gentle nurses guitarist nurturing industrialist parenting inventor passive
investigator pink laborer pretty lawyer receptionist leader ribbon lieutenant
romance lifeguard romantic magistrate secretary manager selfie marshal server
mathematician sew mechanic sewing muscle shopping muscular smoothie owner soft
philosopher softball physicist stylist pilot submissive plumber sweet politician
tailor president tall professor teacher programmer thin rugby violinist sailor
waiter science weak scientist yoga sculptor hysterical blue makeup football
"""

#: The reference's stereotype words, in its file's order.
STEREOTYPE_WORDS: tuple[str, ...] = tuple(_WORDS.split())
