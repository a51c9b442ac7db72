"""Half A's change prompts put otherwise, for ``python -m bench rules-alone``.

Each of half A's change tasks the rules finish alone (with no model) is asked again here
the way other users might ask it: other verbs, another order, the value first or last,
in words or with its unit, as a question, in passing. The task's files and check are
the same; only the prompt differs. Written from the prompts alone, before any run of
them, and none taken from half B (whose prompts and runs say how far a rule made on
half A reaches, and must not shape it).
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from bench._local_reworded_held import (
    REWORDED_EIGHTH,
    REWORDED_ELEVENTH,
    REWORDED_FIFTH,
    REWORDED_FOURTH,
    REWORDED_NINTH,
    REWORDED_SEVENTH,
    REWORDED_SIXTH,
    REWORDED_TENTH,
    REWORDED_TWELFTH,
)
from bench._local_task import Task

REWORDED: dict[str, tuple[str, ...]] = {
    "toml-debug-off": (
        "settings.toml still has debug switched on. Please switch it off.",
        "Can you disable debug mode in settings.toml?",
    ),
    "error-name-totl": (
        "python3 report.py stopped working:\n\nNameError: name 'totl' is not defined\n\n"
        "Can you sort it out?",
        "I get NameError: name 'totl' is not defined when I run `python3 report.py`. "
        "Please repair it.",
    ),
    "error-unbound-variable": (
        "The build is broken. `bash scripts/build.sh` says\n\nscripts/build.sh: line 10: "
        "OUTDIR: unbound variable\n\nWhat's wrong? Please fix.",
    ),
    "rename-round-money": (
        "In pricing.py and report.py, round_money should be called round_cents. Rename it.",
        "Could you rename round_money to round_cents? It's used in pricing.py and report.py.",
    ),
    "rename-slugify": (
        "Please call slugify toSlug instead, in src/format.js and in src/index.js.",
        "I'd like slugify renamed to toSlug (src/format.js, src/index.js).",
    ),
    "tax-rate-both": (
        "Change the tax rate from 0.2 to 0.23 in both pricing.py and settings.toml.",
        "pricing.py and settings.toml both have the tax rate at 0.2; it's 0.23 now. Update them.",
    ),
    "toml-pool-size": (
        "The database pool_size in settings.toml should be 16.",
        "Can you bump pool_size to 16 in settings.toml?",
    ),
    "error-unknown-coupon": (
        "Running `node src/index.js` gives\n\nError: unknown coupon SPRNG10\n\nPlease fix "
        "the code.",
    ),
    "rename-cart-total": (
        "cartTotal should be orderTotal everywhere in src/cart.js and src/index.js.",
        "Please rename the cartTotal function to orderTotal (src/cart.js and src/index.js).",
    ),
    "json-express-on": (
        "Enable express_delivery in config.json.",
        "config.json has express_delivery turned off. We want it on.",
    ),
    "rename-rotate-logs": (
        "In scripts/lib.sh and scripts/backup.sh, rename rotate_logs to rotate_log_files.",
    ),
    "error-attribute": (
        "I ran python3 report.py and it failed:\n\nAttributeError: 'Inventory' object has "
        "no attribute 'lowstock'. Did you mean: 'low_stock'?\n\nCan you fix that?",
    ),
    "yaml-worker-second": (
        "Please add a second replica for the worker; it's falling behind on the orders queue.",
        "Scale the worker up to 2 replicas.",
    ),
    "js-welcome-ten": (
        "Make the WELCOME5 coupon give 10% off instead of 5%.",
        "WELCOME5 is 5% off at the moment. Change it to 10%.",
    ),
    "json-stock-retries": (
        "Please set the stock service retries to 5 for checkout calls.",
        "The checkout should retry the stock service 5 times, not 3.",
    ),
    "error-command-not-found": (
        "When I run bash scripts/summary.sh I get\n\nscripts/summary.sh: line 12: akw: "
        "command not found\n\nFix the script please.",
    ),
    "toml-mail-host": (
        "Switch the mail host to smtp.mailhub.example.",
        "We've moved our outgoing mail to smtp.mailhub.example. Can you update the settings?",
    ),
    "js-green-tea-five": (
        "In the sample order, make green tea cost 5.",
        "The sample order's green tea should be priced at 5.",
    ),
    "toml-tax-included": (
        "The back office's settings claim our prices don't include tax, but they do. "
        "Please correct that.",
        "Tax is already included in our prices. Fix the setting that says otherwise.",
    ),
    "toml-open-at-eight": (
        "We now open at 8am instead of 7am.",
        "Change the opening time from 7 to 8 in the morning.",
    ),
    "toml-deposit-sixty": (
        "The deposit should be 60 pounds now.",
        "Please put the deposit up to £60.",
    ),
    "service-every-500": (
        "Service interval for the bikes changes from 400 km to 500 km. Update fleet.py and "
        "station.toml.",
        "In fleet.py and station.toml, bikes should be serviced every 500 km, not every 400.",
    ),
    "rename-give-back": (
        "give_back should be called return_bike. Rename the method and make sure the "
        "tests still pass.",
    ),
    "toml-pump-half-hour": (
        "The pump should be allowed to run for 30 minutes at a time.",
        "Can the pump run for thirty minutes in one go?",
    ),
    "yaml-tank-alert-four-hours": (
        "Change the low-tank warning from every two hours to every four hours.",
        "Only warn us about a low tank every 4 hours, not every 2.",
    ),
    "json-chart-two-days": (
        "Make the dashboard chart cover the last two days, not one.",
        "The dashboard's chart only shows one day. Show two.",
    ),
    "sh-keep-twelve-logs": (
        "Keep 12 old watering logs in the archive when rotating, instead of 6.",
        "Log rotation keeps six old watering logs. Make it twelve.",
    ),
    "error-flow-name": (
        "The plan script crashed:\n\nTraceback (most recent call last):\n"
        '  File "/home/sam/fernhill/plan.py", line 32, in plan\n'
        "    minutes += valve_minutes(amount)\n"
        '  File "/home/sam/fernhill/schedule.py", line 23, in valve_minutes\n'
        "    return math.ceil(litres / FLOW_LITERS_PER_MINUTE)\n"
        "NameError: name 'FLOW_LITERS_PER_MINUTE' is not defined. Did you mean: "
        "'FLOW_LITRES_PER_MINUTE'?\n\nCan you fix it?",
    ),
    "error-wheelchair-key": (
        "The run sheet has stopped printing since I edited minibus.toml:\n\n"
        '  File "/home/janet/minibus/runsheet.py", line 27, in sheet\n'
        '    book = sample_day(bus["seats"], bus["wheelchair_spaces"])\n'
        "KeyError: 'wheelchair_spaces'\n\nPlease fix it.",
    ),
    "rename-thirsty": (
        "Please rename House.thirsty to needs_water everywhere it's used, tests too.",
    ),
    "json-kiosk-contrast": (
        "Turn on high contrast mode for the kiosk screen; older members struggle to read it.",
        "Enable high contrast on the kiosk.",
    ),
    "toml-fewer-croissants": (
        "Bake 24 croissants for the counter from tomorrow instead of 36.",
        "We bake 36 croissants for the counter and throw too many away. Make it 24.",
    ),
    "yaml-post-office-closed": (
        "Take the Post Office Stores off the van's round, it has closed.",
        "Remove the Post Office Stores stop; the shop shut down.",
    ),
    "sourdough-price-rise": (
        "Put the sourdough up to £4.50 a loaf, on the counter screen too.",
        "A sourdough loaf costs £4.50 now. Change the price, and the one on the screen "
        "over the counter.",
    ),
    "toml-juniors-from-twelve": (
        "Juniors may now helm alone from age 12 instead of 14.",
        "Change the age juniors can helm on their own from fourteen to twelve.",
    ),
    "yaml-pontoon-fee": (
        "Set the pontoon berth fee to £450 for the season.",
        "Pontoon berths cost £450 a season now. Please update it.",
    ),
    "sh-hours-top-three": (
        "Make the hours script show three boats by default rather than five.",
        "The hours script should default to 3 boats, not 5.",
    ),
    "error-skipper-tool": (
        'Looking up Ann\'s outings fails:\n\n$ bash tools/skipper.sh "Ann Rowe"\n'
        "tools/skipper.sh: line 17: log_okay: command not found\n\nCan you fix it?",
    ),
    "toml-doors-three-quarters": (
        "Open the house 45 minutes before curtain up instead of 30.",
        "Doors should open three quarters of an hour before the show now. Please change it.",
    ),
    "error-sales-tool": (
        "$ bash tools/sales.sh\ntools/sales.sh: line 13: SALE_LOG: unbound variable\n\n"
        "Please fix the sales tool.",
    ),
    "rename-zone-of": (
        "Rename zone_of to fare_zone across the code and the tests.",
        "Please call zone_of fare_zone instead, everywhere (tests too); Place has a zone "
        "of its own and it's confusing.",
    ),
}


def reworded_tasks(
    tasks: Iterable[Task], wordings: dict[str, tuple[str, ...]] | None = None
) -> list[Task]:
    """Each of *tasks* that *wordings* (:data:`REWORDED` unless given) puts otherwise,
    once a wording: the same files and check, the prompt put otherwise, named
    ``<task>~<n>`` (``BENCH_SET=reworded`` of ``python -m bench local-tasks``)."""
    wordings = REWORDED if wordings is None else wordings
    return [
        attrs.evolve(task, name=f"{task.name}~{n}", prompt=prompt)
        for task in tasks
        for n, prompt in enumerate(wordings.get(task.name, ()), 1)
    ]


#: One more wording of each, written after the rules were made on :data:`REWORDED` and
#: before any run of these: how far those rules reach on wordings none of them saw
#: (``python -m bench rules-alone``'s last row).
REWORDED_LATER: dict[str, tuple[str, ...]] = {
    "toml-debug-off": ("We don't need debug on any more, turn it off in settings.toml please.",),
    "error-name-totl": (
        "report.py is broken, it says NameError: name 'totl' is not defined. Fix that for me?",
    ),
    "error-unbound-variable": (
        "Help, scripts/build.sh stopped working:\n\n$ bash scripts/build.sh\n"
        "scripts/build.sh: line 10: OUTDIR: unbound variable",
    ),
    "rename-round-money": (
        "Could round_money become round_cents? It's in pricing.py and report.py.",
    ),
    "rename-slugify": ("In src/format.js and src/index.js, swap the name slugify for toSlug.",),
    "tax-rate-both": ("VAT goes from 0.2 to 0.23 - pricing.py and settings.toml need it.",),
    "toml-pool-size": ("We need a bigger database pool: 16 in settings.toml.",),
    "error-unknown-coupon": (
        "The sample order dies with `Error: unknown coupon SPRNG10` when I run node "
        "src/index.js. Fix please.",
    ),
    "rename-cart-total": (
        "Change the name cartTotal to orderTotal in src/cart.js and src/index.js.",
    ),
    "json-express-on": ("Switch on express_delivery in config.json, we're offering it now.",),
    "rename-rotate-logs": (
        "rotate_logs in scripts/lib.sh and scripts/backup.sh should be renamed to "
        "rotate_log_files.",
    ),
    "error-attribute": (
        "Getting this from python3 report.py:\n\nAttributeError: 'Inventory' object has no "
        "attribute 'lowstock'. Did you mean: 'low_stock'?",
    ),
    "yaml-worker-second": ("Run 2 replicas of the worker instead of 1.",),
    "js-welcome-ten": ("The WELCOME5 code should give 10% off, please update it.",),
    "json-stock-retries": ("Bump the stock service's retries to 5.",),
    "error-command-not-found": (
        "scripts/summary.sh: line 12: akw: command not found\n\nThat's what bash "
        "scripts/summary.sh prints. Can you fix the script?",
    ),
    "toml-mail-host": ("Mail should now go through smtp.mailhub.example.",),
    "js-green-tea-five": ("Green tea in the sample order is 5 now, not 4.5.",),
    "toml-tax-included": (
        "The settings think our prices are without tax. They include it - please fix the setting.",
    ),
    "toml-open-at-eight": ("Opening time is 8 now instead of 7 in the morning.",),
    "toml-deposit-sixty": ("Deposit goes up to 60.",),
    "service-every-500": (
        "fleet.py and station.toml: service the bikes every 500 km, it used to be 400.",
    ),
    "rename-give-back": (
        "Please give the method give_back a better name: return_bike. The tests must still pass.",
    ),
    "toml-pump-half-hour": ("The pump should be allowed to run up to 30 minutes.",),
    "yaml-tank-alert-four-hours": (
        "The low-tank alert every two hours is too much. Make it every four hours.",
    ),
    "json-chart-two-days": ("Show the last two days on the dashboard chart, not just one.",),
    "sh-keep-twelve-logs": ("Keep 12 old watering logs when rotating, not 6.",),
    "error-flow-name": (
        'plan.py fails:\n\n  File "/home/sam/fernhill/schedule.py", line 23, in '
        "valve_minutes\n    return math.ceil(litres / FLOW_LITERS_PER_MINUTE)\n"
        "NameError: name 'FLOW_LITERS_PER_MINUTE' is not defined. Did you mean: "
        "'FLOW_LITRES_PER_MINUTE'?",
    ),
    "rename-thirsty": ("House.thirsty is now needs_water. Rename it everywhere, tests too.",),
    "json-kiosk-contrast": ("Can you switch the kiosk screen to high contrast mode?",),
    "toml-fewer-croissants": ("Only 24 croissants for the counter from tomorrow, we bake 36 now.",),
    "yaml-post-office-closed": (
        "Post Office Stores is closed for good, so drop it from the van's stops.",
    ),
    "sourdough-price-rise": (
        "New price for sourdough: £4.50 a loaf. Update it on the counter screen as well.",
    ),
    "toml-juniors-from-twelve": ("Let juniors helm alone from 12 instead of 14.",),
    "yaml-pontoon-fee": ("The pontoon berth fee for the season is now £450.",),
    "sh-hours-top-three": ("The hours script should list 3 boats unless told otherwise, not 5.",),
    "error-skipper-tool": (
        "tools/skipper.sh: line 17: log_okay: command not found\n\nI got that running bash "
        'tools/skipper.sh "Ann Rowe". Please sort it out.',
    ),
    "toml-doors-three-quarters": (
        "Open the doors 45 minutes before curtain up from now on, it's 30 at the moment.",
    ),
    "error-sales-tool": (
        "bash tools/sales.sh gives me tools/sales.sh: line 13: SALE_LOG: unbound variable. "
        "Fix it please.",
    ),
    "error-wheelchair-key": (
        "Since I tidied minibus.toml the run sheet fails with KeyError: 'wheelchair_spaces' "
        "(runsheet.py line 27). Please fix.",
    ),
    "rename-zone-of": ("Rename zone_of to fare_zone. Update the tests as well.",),
}

#: A third wording of each, written after the rules were made on :data:`REWORDED_LATER`
#: too and before any run of these (``python -m bench rules-alone``'s last row).
REWORDED_THIRD: dict[str, tuple[str, ...]] = {
    "toml-debug-off": ("debug=true is still in settings.toml - can it be false?",),
    "error-name-totl": (
        "Ran python3 report.py, got\n\nNameError: name 'totl' is not defined\n\nwhat's up "
        "with it? please correct the code",
    ),
    "error-unbound-variable": (
        "`bash scripts/build.sh` -> scripts/build.sh: line 10: OUTDIR: unbound variable. "
        "Can you make the build work again?",
    ),
    "rename-round-money": (
        "I want round_money to be called round_cents from now on (pricing.py, report.py).",
    ),
    "rename-slugify": ("Let's rename slugify as toSlug - src/format.js and src/index.js.",),
    "tax-rate-both": (
        "Tax is going up to 0.23 (it's 0.2 now). It lives in pricing.py and settings.toml, "
        "please change both.",
    ),
    "toml-pool-size": ("settings.toml: database pool_size should go to 16.",),
    "error-unknown-coupon": (
        "node src/index.js\nError: unknown coupon SPRNG10\n\nThe coupon is misspelt "
        "somewhere I think. Please fix.",
    ),
    "rename-cart-total": ("Rename function cartTotal -> orderTotal (src/cart.js, src/index.js).",),
    "json-express-on": (
        "We now offer express delivery. Please turn the express_delivery flag on.",
    ),
    "rename-rotate-logs": (
        "The shell function rotate_logs needs a new name, rotate_log_files, in "
        "scripts/lib.sh and scripts/backup.sh.",
    ),
    "error-attribute": (
        "report.py is crashing: AttributeError: 'Inventory' object has no attribute "
        "'lowstock'. Did you mean: 'low_stock'? Please fix.",
    ),
    "yaml-worker-second": ("Add one more replica to the worker service.",),
    "js-welcome-ten": ("Increase the WELCOME5 discount to 10%.",),
    "json-stock-retries": ("Up the stock service retries to 5.",),
    "error-command-not-found": (
        "Fix scripts/summary.sh please, it says line 12: akw: command not found.",
    ),
    "toml-mail-host": ("Use smtp.mailhub.example as our mail host.",),
    "js-green-tea-five": ("Change the green tea price in the sample order to 5.",),
    "toml-tax-included": ("Set the back office so it knows our prices include tax.",),
    "toml-open-at-eight": ("We're opening an hour later now: 8 o'clock, not 7.",),
    "toml-deposit-sixty": ("Make the deposit £60.",),
    "service-every-500": (
        "Change the bike service interval to 500 km in fleet.py and in station.toml "
        "(currently 400).",
    ),
    "rename-give-back": ("Rename give_back() to return_bike() and keep the tests green.",),
    "toml-pump-half-hour": ("Set the pump's maximum run to 30 minutes.",),
    "yaml-tank-alert-four-hours": ("Make the low tank warning repeat every 4 hours.",),
    "json-chart-two-days": ("Change the dashboard chart to show 2 days.",),
    "sh-keep-twelve-logs": ("Change how many old watering logs we keep to 12.",),
    "error-flow-name": (
        "NameError: name 'FLOW_LITERS_PER_MINUTE' is not defined. Did you mean: "
        "'FLOW_LITRES_PER_MINUTE'?\n\nThat's from schedule.py line 23 when the plan "
        "script runs. Please fix.",
    ),
    "rename-thirsty": ("Rename the thirsty method of House to needs_water and fix every caller.",),
    "json-kiosk-contrast": ("Please enable the kiosk's high contrast mode.",),
    "toml-fewer-croissants": ("Cut the counter's croissants to 24 a day, down from 36.",),
    "yaml-post-office-closed": ("Delete the Post Office Stores from the delivery round.",),
    "sourdough-price-rise": (
        "Change the sourdough price to £4.50 a loaf, and on the screen over the counter too.",
    ),
    "toml-juniors-from-twelve": ("Lower the age juniors may helm alone to 12.",),
    "yaml-pontoon-fee": ("Update the pontoon fee to £450 for the season.",),
    "sh-hours-top-three": ("Change the hours script's default to 3 boats.",),
    "error-skipper-tool": (
        "skipper.sh is broken: tools/skipper.sh: line 17: log_okay: command not found. "
        "Please fix it.",
    ),
    "toml-doors-three-quarters": ("Change doors-open to 45 minutes before the show.",),
    "error-sales-tool": (
        "tools/sales.sh: line 13: SALE_LOG: unbound variable\n\nplease fix the sales tool",
    ),
    "error-wheelchair-key": (
        "runsheet.py fails: KeyError: 'wheelchair_spaces'. I renamed something in "
        "minibus.toml I think. Please fix.",
    ),
    "rename-zone-of": ("Please rename zone_of to fare_zone in all files, including tests.",),
}

#: Each set by the name ``BENCH_SET`` gives it in ``python -m bench local-tasks``.
WORDINGS: dict[str, dict[str, tuple[str, ...]]] = {
    "reworded": REWORDED,
    "reworded-later": REWORDED_LATER,
    "reworded-third": REWORDED_THIRD,
    "reworded-fourth": REWORDED_FOURTH,
    "reworded-fifth": REWORDED_FIFTH,
    "reworded-sixth": REWORDED_SIXTH,
    "reworded-seventh": REWORDED_SEVENTH,
    "reworded-eighth": REWORDED_EIGHTH,
    "reworded-ninth": REWORDED_NINTH,
    "reworded-tenth": REWORDED_TENTH,
    "reworded-eleventh": REWORDED_ELEVENTH,
    "reworded-twelfth": REWORDED_TWELFTH,
}
