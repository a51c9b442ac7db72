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

#: A fourth wording of each, written after the rules were made on :data:`REWORDED_THIRD`
#: and before any rule of the next round: how far that round's rules reach on wordings
#: written before them (run once before the round and once after it).
REWORDED_FOURTH: dict[str, tuple[str, ...]] = {
    "toml-debug-off": ("Turn debug off before we ship, it's in settings.toml.",),
    "error-name-totl": (
        "report.py won't run any more (NameError: name 'totl' is not defined). Could you fix "
        "the typo?",
    ),
    "error-unbound-variable": (
        "scripts/build.sh keeps failing with 'OUTDIR: unbound variable' on line 10. Fix it so "
        "the build runs.",
    ),
    "rename-round-money": (
        "round_money is a misleading name since it works in cents. Rename it to round_cents in "
        "pricing.py and report.py.",
    ),
    "rename-slugify": (
        "The slugify helper in src/format.js (also called from src/index.js) should be toSlug "
        "to match our naming.",
    ),
    "tax-rate-both": (
        "The tax rate is now 0.23. Please update it wherever it's set (pricing.py and "
        "settings.toml).",
    ),
    "toml-pool-size": ("Raise the database connection pool to 16 connections.",),
    "error-unknown-coupon": (
        "Our sample order throws 'unknown coupon SPRNG10' - looks like a typo in the coupon "
        "code. Can you correct it?",
    ),
    "rename-cart-total": ("cartTotal → orderTotal, in src/cart.js and src/index.js please.",),
    "json-express-on": (
        "Express delivery is live now, so express_delivery should be true in config.json.",
    ),
    "rename-rotate-logs": (
        "Please rename our shell function rotate_logs; call it rotate_log_files instead "
        "(scripts/lib.sh, scripts/backup.sh).",
    ),
    "error-attribute": (
        "python3 report.py → AttributeError: 'Inventory' object has no attribute 'lowstock'. "
        "Fix the attribute name.",
    ),
    "yaml-worker-second": ("The orders queue is backing up. Can we have two worker replicas?",),
    "js-welcome-ten": ("Bump the WELCOME5 coupon from 5% to 10% off.",),
    "json-stock-retries": (
        "Checkout gives up on the stock service too soon. Let it retry 5 times.",
    ),
    "error-command-not-found": (
        "There's a typo on line 12 of scripts/summary.sh, it calls akw (command not found). "
        "Fix it.",
    ),
    "toml-mail-host": (
        "Our SMTP server changed to smtp.mailhub.example. Update the mail host setting.",
    ),
    "js-green-tea-five": ("Green tea went up to 5 - please change it in the sample order.",),
    "toml-tax-included": (
        "Our prices already include tax - please tell the back office settings that.",
    ),
    "toml-open-at-eight": (
        "From next week we open at 8 in the morning. Please change the opening hour.",
    ),
    "toml-deposit-sixty": ("Increase the deposit to £60.",),
    "service-every-500": (
        "Bikes now get serviced every 500 km. Update both fleet.py and station.toml.",
    ),
    "rename-give-back": (
        "The give_back method should be renamed return_bike. Update the callers and the tests.",
    ),
    "toml-pump-half-hour": ("Raise the pump's max run time to half an hour.",),
    "yaml-tank-alert-four-hours": ("The low tank alert should only repeat every four hours.",),
    "json-chart-two-days": ("Extend the dashboard chart to two days of history.",),
    "sh-keep-twelve-logs": ("Keep a dozen old watering logs instead of six.",),
    "error-flow-name": (
        "schedule.py line 23 uses FLOW_LITERS_PER_MINUTE but the constant is "
        "FLOW_LITRES_PER_MINUTE, so the plan script dies with a NameError. Fix it.",
    ),
    "rename-thirsty": (
        "In the House class, thirsty should be renamed needs_water; update every call.",
    ),
    "json-kiosk-contrast": ("The kiosk needs high contrast turned on.",),
    "toml-fewer-croissants": ("Reduce the counter croissants from 36 to 24.",),
    "yaml-post-office-closed": (
        "The Post Office Stores has closed. Remove it from the delivery round.",
    ),
    "sourdough-price-rise": (
        "Sourdough is £4.50 a loaf from today; change it in the prices and on the counter screen.",
    ),
    "toml-juniors-from-twelve": (
        "Juniors can now helm solo at 12 (it was 14). Update the club rules.",
    ),
    "yaml-pontoon-fee": ("Raise the seasonal pontoon fee to £450.",),
    "sh-hours-top-three": ("By default the hours script should show the top 3 boats.",),
    "error-skipper-tool": (
        "tools/skipper.sh calls log_okay on line 17 but there's no such command. Please fix "
        "the script.",
    ),
    "toml-doors-three-quarters": (
        "We want the doors open 45 minutes before each show, up from 30.",
    ),
    "error-sales-tool": (
        "The sales tool crashes: line 13: SALE_LOG: unbound variable. Please fix tools/sales.sh.",
    ),
    "error-wheelchair-key": (
        "runsheet.py crashes with a KeyError for wheelchair_spaces after my minibus.toml edit. "
        "Can you fix it?",
    ),
    "rename-zone-of": ("zone_of -> fare_zone everywhere, tests included.",),
}


#: A fifth wording of each, written at the start of the fortieth round, before any rule or
#: ending of that round was made and before any run of these: that round's held-out measure.
REWORDED_FIFTH: dict[str, tuple[str, ...]] = {
    "toml-debug-off": ("settings.toml still has debug switched on. We don't want that.",),
    "error-name-totl": (
        "Getting NameError: name 'totl' is not defined when I run report.py. Can you sort it out?",
    ),
    "error-unbound-variable": (
        "The build script dies on line 10 with OUTDIR: unbound variable (scripts/build.sh). "
        "Please make it work.",
    ),
    "rename-round-money": (
        "I'd like round_money renamed to round_cents - it's used in pricing.py and report.py.",
    ),
    "rename-slugify": (
        "Can slugify be called toSlug from now on? src/format.js and src/index.js.",
    ),
    "tax-rate-both": (
        "New tax rate: 0.23 instead of 0.2. It appears in both pricing.py and settings.toml.",
    ),
    "toml-pool-size": ("The database pool is too small; make it 16.",),
    "error-unknown-coupon": (
        "node src/index.js blows up with 'Error: unknown coupon SPRNG10'. The sample order "
        "probably has the code wrong - please sort it.",
    ),
    "rename-cart-total": ("Let's call cartTotal orderTotal instead (src/cart.js, src/index.js).",),
    "json-express-on": ("We offer express delivery now. Switch it on in config.json.",),
    "rename-rotate-logs": (
        "rotate_logs should really be rotate_log_files. It's defined in scripts/lib.sh and "
        "used in scripts/backup.sh.",
    ),
    "error-attribute": (
        "report.py fails: AttributeError: 'Inventory' object has no attribute 'lowstock'. "
        "Please correct it.",
    ),
    "yaml-worker-second": (
        "One worker isn't enough for the orders queue any more; we need 2 of them.",
    ),
    "js-welcome-ten": ("WELCOME5 ought to give 10% off rather than 5%. Could you change that?",),
    "json-stock-retries": (
        "When checkout calls the stock service, it should try up to 5 times before giving up.",
    ),
    "error-command-not-found": (
        "scripts/summary.sh: line 12: akw: command not found - that should be awk, right? "
        "Please fix the script.",
    ),
    "toml-mail-host": ("We moved mail to smtp.mailhub.example; point the settings at it.",),
    "js-green-tea-five": (
        "In the sample order, green tea should be priced at 5 now. Can you update it?",
    ),
    "toml-tax-included": (
        "The back office thinks our prices don't include tax, but they do. Fix the setting.",
    ),
    "toml-open-at-eight": ("We're opening an hour later from Monday: 8 am. Change the hours.",),
    "toml-deposit-sixty": ("The deposit needs to be £60 now.",),
    "service-every-500": (
        "The service interval for the bikes changes to 500 km (it's 400 in fleet.py and in "
        "station.toml).",
    ),
    "rename-give-back": (
        "give_back is an odd name; please make it return_bike, tests and callers included.",
    ),
    "toml-pump-half-hour": ("The pump may now run 30 minutes in one go. Update the limit.",),
    "yaml-tank-alert-four-hours": (
        "Could the low tank warning wait four hours before it repeats?",
    ),
    "json-chart-two-days": ("I want two days of history on the dashboard chart, not one.",),
    "sh-keep-twelve-logs": ("The rotation only keeps six old watering logs. Make it keep 12.",),
    "error-flow-name": (
        "plan.py crashes: NameError: name 'FLOW_LITERS_PER_MINUTE' is not defined (in "
        "schedule.py, valve_minutes). Please fix.",
    ),
    "rename-thirsty": (
        "House.thirsty reads oddly. Rename it needs_water and fix up its callers and tests.",
    ),
    "json-kiosk-contrast": (
        "Please enable high contrast on the kiosk, people are struggling to read it.",
    ),
    "toml-fewer-croissants": ("Only 24 croissants for the counter from now on, please.",),
    "yaml-post-office-closed": (
        "Drop the Post Office Stores stop from the van's round - it shut last week.",
    ),
    "sourdough-price-rise": (
        "We're charging £4.50 for sourdough now. Update the price list and the counter screen.",
    ),
    "toml-juniors-from-twelve": (
        "The minimum age for juniors to helm solo is now twelve. Please update the rules file.",
    ),
    "yaml-pontoon-fee": ("Pontoon berths cost £450 a season from now on.",),
    "sh-hours-top-three": (
        "Change the hours script so that without an argument it lists the top three boats.",
    ),
    "error-skipper-tool": (
        "tools/skipper.sh \"Ann Rowe\" prints 'line 17: log_okay: command not found'. Can you "
        "repair it?",
    ),
    "toml-doors-three-quarters": ("Doors should open 45 minutes before curtain up instead of 30.",),
    "error-sales-tool": (
        "Running tools/sales.sh gives 'line 13: SALE_LOG: unbound variable'. Could you make it "
        "run again?",
    ),
    "error-wheelchair-key": (
        "The run sheet script fails with KeyError: 'wheelchair_spaces' since I edited "
        "minibus.toml. Sort it out please.",
    ),
    "rename-zone-of": ("Please rename zone_of to fare_zone throughout, including the tests.",),
}


#: A sixth wording of each, written in the fortieth round after its rules and before the
#: fifth set's misses were looked at: the held-out measure of what the round then made
#: on the fifth set's misses (how its prompts are heard: ``python -m bench change-words``).
REWORDED_SIXTH: dict[str, tuple[str, ...]] = {
    "toml-debug-off": ("Debug mode is still on in settings.toml; it shouldn't be.",),
    "error-name-totl": (
        "report.py stops with NameError: name 'totl' is not defined - looks like a typo.",
    ),
    "error-unbound-variable": (
        "Every build now ends with 'scripts/build.sh: line 10: OUTDIR: unbound variable'.",
    ),
    "rename-round-money": (
        "round_money only deals in cents, so the name round_cents suits it better. It's "
        "used in pricing.py and report.py.",
    ),
    "rename-slugify": ("We'd rather have toSlug than slugify (src/format.js, src/index.js).",),
    "tax-rate-both": (
        "VAT is 0.23 from this quarter; pricing.py and settings.toml both still say 0.2.",
    ),
    "toml-pool-size": ("settings.toml: bump pool_size to 16.",),
    "error-unknown-coupon": (
        "The sample order crashes on an unknown coupon, SPRNG10. I think it's meant to be "
        "the spring coupon.",
    ),
    "rename-cart-total": (
        "In src/cart.js and src/index.js, cartTotal ought to be called orderTotal.",
    ),
    "json-express-on": ("config.json says express_delivery is false; it's true now.",),
    "rename-rotate-logs": (
        "Give rotate_logs the name rotate_log_files in scripts/lib.sh and scripts/backup.sh.",
    ),
    "error-attribute": (
        "AttributeError: 'Inventory' object has no attribute 'lowstock' when running "
        "report.py. It's low_stock, I think.",
    ),
    "yaml-worker-second": ("Scale the worker to 2 replicas, the queue is too long.",),
    "js-welcome-ten": ("The WELCOME5 discount is going up to 10%.",),
    "json-stock-retries": ("Five retries for the stock service please, not three.",),
    "error-command-not-found": (
        "Line 12 of scripts/summary.sh calls akw, which doesn't exist - it should be awk.",
    ),
    "toml-mail-host": ("Mail host is smtp.mailhub.example now.",),
    "js-green-tea-five": ("Green tea in the sample order should cost 5, not 4.5.",),
    "toml-tax-included": ("Set the back office to treat our prices as tax-inclusive.",),
    "toml-open-at-eight": ("Opening time moves to 8 am.",),
    "toml-deposit-sixty": ("We're putting the deposit up to £60.",),
    "service-every-500": (
        "Service interval: 500 km from now on, in fleet.py and in station.toml.",
    ),
    "rename-give-back": ("Please change give_back to return_bike, including in the tests.",),
    "toml-pump-half-hour": ("The pump should be allowed to run for 30 minutes.",),
    "yaml-tank-alert-four-hours": ("Repeat the low tank alert every 4 hours instead.",),
    "json-chart-two-days": ("Make the dashboard chart cover two days.",),
    "sh-keep-twelve-logs": ("We should be keeping 12 old watering logs, not 6.",),
    "error-flow-name": (
        "NameError in schedule.py: FLOW_LITERS_PER_MINUTE is not defined. The plan script "
        "can't run.",
    ),
    "rename-thirsty": (
        "thirsty on House would read better as needs_water; update the callers and tests.",
    ),
    "json-kiosk-contrast": ("High contrast for the kiosk, please.",),
    "toml-fewer-croissants": ("The counter gets 24 croissants a day from now on.",),
    "yaml-post-office-closed": ("The van no longer stops at the Post Office Stores.",),
    "sourdough-price-rise": (
        "£4.50 for a sourdough loaf now - in the price list and on the counter screen.",
    ),
    "toml-juniors-from-twelve": ("Juniors may helm on their own from age 12 now.",),
    "yaml-pontoon-fee": ("The seasonal pontoon fee goes up to £450.",),
    "sh-hours-top-three": ("Let the hours script show the top three boats by default.",),
    "error-skipper-tool": (
        "line 17 of tools/skipper.sh: log_okay: command not found. Please sort the script out.",
    ),
    "toml-doors-three-quarters": ("Open the doors 45 minutes before each show from now on.",),
    "error-sales-tool": ("tools/sales.sh: line 13: SALE_LOG: unbound variable - help!",),
    "error-wheelchair-key": (
        "KeyError: 'wheelchair_spaces' from runsheet.py since I edited minibus.toml. What "
        "did I break? Please put it right.",
    ),
    "rename-zone-of": ("Rename zone_of as fare_zone, tests and all.",),
}

#: Each set by the name ``BENCH_SET`` gives it in ``python -m bench local-tasks``.
WORDINGS: dict[str, dict[str, tuple[str, ...]]] = {
    "reworded": REWORDED,
    "reworded-later": REWORDED_LATER,
    "reworded-third": REWORDED_THIRD,
    "reworded-fourth": REWORDED_FOURTH,
    "reworded-fifth": REWORDED_FIFTH,
    "reworded-sixth": REWORDED_SIXTH,
}
