"""The wording sets of half A's change prompts written each at the start of a round (or,
the sixth, in the middle of one), before the rules that round made: the measure of how
far those rules reach on wordings none of them saw. Read with the others by
:mod:`bench._local_reworded` (``WORDINGS``), under the same rules: from the prompts alone,
none taken from half B.
"""

from __future__ import annotations

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

#: A seventh wording of each, written at the start of the forty-first round, before any
#: rule of it and before the sixth set's misses were looked at: run once on the code
#: before the round and once after it.
REWORDED_SEVENTH: dict[str, tuple[str, ...]] = {
    "toml-debug-off": ("Production shouldn't run with debug = true. settings.toml, please.",),
    "error-name-totl": (
        "python3 report.py\n  ...\nNameError: name 'totl' is not defined\nThat's after "
        "yesterday's change. Fix please.",
    ),
    "error-unbound-variable": (
        "OUTDIR: unbound variable, line 10 of scripts/build.sh. The build has to work again.",
    ),
    "rename-round-money": (
        "Rename pass: round_money becomes round_cents everywhere (pricing.py, report.py).",
    ),
    "rename-slugify": (
        "Our JS style guide says camelCase with a verb: slugify should be toSlug. It lives in "
        "src/format.js and src/index.js calls it.",
    ),
    "tax-rate-both": ("Update the tax rate to 0.23 in pricing.py and in settings.toml.",),
    "toml-pool-size": ("We keep running out of DB connections. 16 in the pool, please.",),
    "error-unknown-coupon": (
        "Running the sample order: Error: unknown coupon SPRNG10. The coupon in the order is "
        "misspelled; it's SPRING10.",
    ),
    "rename-cart-total": (
        "The function cartTotal in src/cart.js needs the name orderTotal; src/index.js uses "
        "it too.",
    ),
    "json-express-on": ("Turn on express delivery.",),
    "rename-rotate-logs": (
        "Could you rename rotate_logs to rotate_log_files? It's in scripts/lib.sh and "
        "scripts/backup.sh.",
    ),
    "error-attribute": (
        "report.py: AttributeError: 'Inventory' object has no attribute 'lowstock'. Should be "
        "low_stock.",
    ),
    "yaml-worker-second": ("Two worker replicas instead of one in the compose file.",),
    "js-welcome-ten": ("Customers with WELCOME5 should now get 10% off.",),
    "json-stock-retries": ("Set the stock service retries to 5.",),
    "error-command-not-found": (
        "scripts/summary.sh fails at line 12 with 'akw: command not found'. Please repair it.",
    ),
    "toml-mail-host": ("Switch the mail host over to smtp.mailhub.example.",),
    "js-green-tea-five": ("Green tea costs 5 now in the sample order; please change it.",),
    "toml-tax-included": ("Our prices already include tax. Tell the back office config so.",),
    "toml-open-at-eight": ("From next week we open at 8:00 instead of 7:00.",),
    "toml-deposit-sixty": ("Change the bike deposit to 60.",),
    "service-every-500": (
        "Bikes need a service every 500 km now. Both fleet.py and station.toml say 400.",
    ),
    "rename-give-back": ("Rename give_back to return_bike and update its callers and tests.",),
    "toml-pump-half-hour": ("Let the pump run up to 30 minutes at a time.",),
    "yaml-tank-alert-four-hours": (
        "The low tank alert repeats too often. Make it every four hours.",
    ),
    "json-chart-two-days": ("The dashboard chart should show the last 2 days.",),
    "sh-keep-twelve-logs": ("Keep twelve old watering logs instead of six.",),
    "error-flow-name": (
        "Running plan.py: NameError: name 'FLOW_LITERS_PER_MINUTE' is not defined. Can you "
        "fix schedule.py?",
    ),
    "rename-thirsty": (
        "Please rename the thirsty method of House to needs_water, with its callers and tests.",
    ),
    "json-kiosk-contrast": ("Switch the kiosk to high contrast.",),
    "toml-fewer-croissants": ("Cut the counter's daily croissants to 24.",),
    "yaml-post-office-closed": ("The Post Office Stores has closed; take it off the van's round.",),
    "sourdough-price-rise": (
        "Sourdough is £4.50 from today. Change it in the price list and the counter screen.",
    ),
    "toml-juniors-from-twelve": ("Let juniors helm alone from age 12.",),
    "yaml-pontoon-fee": ("Change the seasonal pontoon fee to £450.",),
    "sh-hours-top-three": (
        "When the hours script is run with no argument it should show the top 3 boats.",
    ),
    "error-skipper-tool": (
        "tools/skipper.sh stops at line 17: log_okay: command not found. Fix the script.",
    ),
    "toml-doors-three-quarters": ("Doors should open 45 minutes before each show.",),
    "error-sales-tool": (
        "tools/sales.sh fails: line 13: SALE_LOG: unbound variable. Please fix it.",
    ),
    "error-wheelchair-key": (
        "runsheet.py now fails with KeyError: 'wheelchair_spaces'. I changed minibus.toml "
        "this morning. Please fix it.",
    ),
    "rename-zone-of": ("zone_of should be renamed fare_zone, with the tests.",),
}

#: An eighth wording of each, written at the start of the forty-second round, before any
#: rule of it, by a writer who saw the tasks and the earlier wordings but not the rules:
#: run once on the code before the round and once after it.
REWORDED_EIGHTH: dict[str, tuple[str, ...]] = {
    "toml-debug-off": (
        "We're about to go live, so could you set debug to false in settings.toml?",
    ),
    "error-name-totl": (
        "The stock report's broken:\n\n$ python3 report.py\nTraceback (most recent call last):\n"
        "  ...\n"
        '  File "/home/ana/shop/report.py", line 13, in build_report\n'
        '    lines.append(f"total value: {totl:.2f} {CURRENCY}")\n'
        "                                 ^^^^\n"
        "NameError: name 'totl' is not defined. Did you mean: 'total'?\n\n"
        "Can you fix that line?",
    ),
    "error-unbound-variable": (
        "ci's red again, scripts/build.sh falls over at line 10 with 'OUTDIR: unbound "
        "variable'. i think the variable is spelt differently further up? pls fix",
    ),
    "rename-round-money": (
        "I keep reading round_money as rounding to whole pounds, so let's call it round_cents "
        "instead - in pricing.py where it's defined and in report.py where it's used.",
    ),
    "rename-slugify": (
        "Would you mind renaming slugify to toSlug? It's defined in src/format.js, and don't "
        "forget the call in src/index.js.",
    ),
    "tax-rate-both": (
        "Tax is rising to 23% from 20%. Please update the rate in both pricing.py and "
        "settings.toml.",
    ),
    "toml-pool-size": ("Could we have sixteen connections in the database pool instead of eight?",),
    "error-unknown-coupon": (
        "The sample order crashes:\n\n$ node src/index.js\n/home/ana/shop/src/cart.js:31\n"
        "    throw new Error(`unknown coupon ${code}`);\n    ^\n\n"
        "Error: unknown coupon SPRNG10\n"
        "    at applyCoupon (/home/ana/shop/src/cart.js:31:11)\n"
        "    at main (/home/ana/shop/src/index.js:19:3)\n\nCould you put it right?",
    ),
    "rename-cart-total": (
        "What it adds up is the order, not the cart, so I'd like cartTotal renamed to "
        "orderTotal, both in src/cart.js and where src/index.js calls it.",
    ),
    "json-express-on": (
        "Great news, the courier contract's signed! Can you switch express delivery on in "
        "config.json?",
    ),
    "rename-rotate-logs": (
        "pls rename rotate_logs to rotate_log_files in scripts/lib.sh, and scripts/backup.sh "
        "calls it too so change it there as well",
    ),
    "error-attribute": (
        "report.py calls inv.lowstock() on line 16, but the Inventory method is low_stock, so "
        "the report dies with an AttributeError. Please fix the call.",
    ),
    "yaml-worker-second": ("Double the worker's replicas in deploy.yaml, one isn't keeping up.",),
    "js-welcome-ten": (
        "Make the WELCOME5 coupon worth ten percent off instead of five (keep the code's name "
        "as it is).",
    ),
    "json-stock-retries": (
        "The stock service drops the odd request when it's busy, so have checkout retry it "
        "five times rather than three.",
    ),
    "error-command-not-found": (
        "summary.sh has stopped working:\n\n$ bash scripts/summary.sh\n"
        "scripts/summary.sh: line 12: akw: command not found\n\n"
        "Must be a typo somewhere. Could you correct it?",
    ),
    "toml-mail-host": (
        "Could you point our outgoing mail at smtp.mailhub.example rather than smtp.shop.example?",
    ),
    "js-green-tea-five": (
        "Green tea's gone up from four fifty to five euros; please change it in the sample order.",
    ),
    "toml-tax-included": (
        "Just noticed the back office's settings have included_in_prices = false. Our prices "
        "do include tax, so could you flip that?",
    ),
    "toml-open-at-eight": (
        "We'll be opening at eight o'clock rather than seven from now on - can you change the "
        "station's opening time?",
    ),
    "toml-deposit-sixty": ("Put the deposit up by a tenner, to sixty quid.",),
    "service-every-500": (
        "The manufacturer now says a service every five hundred kilometres is fine, not four "
        "hundred, so change SERVICE_EVERY_KM in fleet.py and service_every_km in station.toml "
        "to match.",
    ),
    "rename-give-back": (
        "give_back -> return_bike in fleet.py and test_fleet.py; the tests still need to pass.",
    ),
    "toml-pump-half-hour": (
        "The tomato beds aren't getting enough water because the pump cuts out after 25 "
        "minutes. Let it run for 30.",
    ),
    "yaml-tank-alert-four-hours": (
        "In alerts.yaml, set repeat_minutes for the tank-low rule to 240.",
    ),
    "json-chart-two-days": (
        "Could the sensor chart on the dashboard cover 48 hours rather than 24?",
    ),
    "sh-keep-twelve-logs": (
        "tools/rotate.sh only keeps 6 archvied watering logs, could you make it keep 12? we "
        "keep needing the older ones",
    ),
    "error-flow-name": (
        "$ python3 plan.py\nTraceback (most recent call last):\n  ...\n"
        '  File "/home/sam/fernhill/schedule.py", line 23, in valve_minutes\n'
        "    return math.ceil(litres / FLOW_LITERS_PER_MINUTE)\n"
        "                              ^^^^^^^^^^^^^^^^^^^^^^\n"
        "NameError: name 'FLOW_LITERS_PER_MINUTE' is not defined. Did you mean: "
        "'FLOW_LITRES_PER_MINUTE'?\n\nAmerican spelling crept in, I reckon. Could you sort it?",
    ),
    "rename-thirsty": (
        "Reading plan.py, I can never remember what thirsty() means, so let's rename it on "
        "House to needs_water and change its callers and the tests with it.",
    ),
    "json-kiosk-contrast": (
        "Morning! A few regulars have been squinting at the kiosk again. Could you switch its "
        "high contrast setting on?",
    ),
    "toml-fewer-croissants": (
        "Two dozen croissants for the counter from tomorrow, not three dozen - please change "
        "the bake.",
    ),
    "yaml-post-office-closed": (
        "Sad news, the village Post Office Stores shut for good on Saturday, so please strike "
        "it off the van's delivery list.",
    ),
    "sourdough-price-rise": (
        "Sourdough's going up thirty pence, to four pounds fifty a loaf. Please change it in "
        "prices.py and in counter/menu.json for the screen.",
    ),
    "toml-juniors-from-twelve": (
        "Can you update club.toml so juniors may helm solo from 12 rather than 14?",
    ),
    "yaml-pontoon-fee": ("moorings.yaml: pontoon 420 -> 450.",),
    "sh-hours-top-three": (
        "Nobody reads past the third boat, so have tools/hours.sh default to three instead of "
        "five (still taking a number if one's given).",
    ),
    "error-skipper-tool": (
        '$ bash tools/skipper.sh "Ann Rowe"\n'
        "tools/skipper.sh: line 17: log_okay: command not found\n\n"
        "Happens for every name I try, not just Ann. Probably a typo in skipper.sh - can you "
        "get it going again?",
    ),
    "toml-doors-three-quarters": (
        "Front of house want an extra fifteen minutes before curtain up, so doors at 45 "
        "minutes before rather than 30. Can you change that?",
    ),
    "error-sales-tool": (
        "sales.sh has stopped working on me, all it says is\n\n"
        "tools/sales.sh: line 13: SALE_LOG: unbound variable\n\n"
        "could you have a look and fix it before tonight's meeting?",
    ),
    "error-wheelchair-key": (
        "Since my tidy-up of minibus.toml, runsheet.py dies with a KeyError on "
        "wheelchair_spaces. I must have renamed that key by mistake - can you put it right so "
        "the run sheet prints again?",
    ),
    "rename-zone-of": (
        "Go ahead and rename zone_of to fare_zone across places.py, fares.py, and test_minibus.py.",
    ),
}

#: A ninth wording of each, written during the forty-second round, after its rules and
#: before any run of them, by a writer who saw the tasks and the earlier wordings but not
#: the rules: run once on the code before the round's rules and once after them.
REWORDED_NINTH: dict[str, tuple[str, ...]] = {
    "toml-debug-off": (
        "Ticket 412: the back office still ships with debug = true in settings.toml. Set it "
        "to false before Friday's release.",
    ),
    "error-name-totl": (
        "Forwarding this from Ana in the warehouse:\n\n> python3 report.py won't print the "
        "stock report any more, it just says NameError: name 'totl' is not defined\n\n"
        "Looks like a typo in report.py. Could you fix it so the report prints again?",
    ),
    "error-unbound-variable": (
        "Here's what the build does now:\n\n$ bash scripts/build.sh\n"
        "scripts/build.sh: line 10: OUTDIR: unbound variable\n\n"
        'Line 10 is just the `mkdir -p "$OUTDIR"`. Mind fixing the script?',
    ),
    "rename-round-money": (
        "Small refactor please:\n- round_money -> round_cents\n- it's defined in pricing.py\n"
        "- report.py imports and calls it, so update that too",
    ),
    "rename-slugify": (
        "WEB-88: rename slugify() to toSlug(). Defined in src/format.js, called from "
        "src/index.js. No behaviour change.",
    ),
    "tax-rate-both": (
        "From 1 January the tax rate is twenty-three per cent. TAX_RATE in pricing.py and "
        "the rate in settings.toml still say 0.2 - please bring both up to date.",
    ),
    "toml-pool-size": (
        "We're getting connection timeouts under load. Could you double pool_size in "
        "settings.toml, from 8 to 16?",
    ),
    "error-unknown-coupon": (
        "Oh, and while you're in there: node src/index.js has started throwing "
        "'Error: unknown coupon SPRNG10'. The coupon in the sample order looks misspelt, "
        "could you fix that too?",
    ),
    "rename-cart-total": (
        "Right, I've finally settled on a name: orderTotal rather than cartTotal. Could you "
        "do the rename? It's exported from src/cart.js and used in src/index.js.",
    ),
    "json-express-on": (
        'From Priya in ops: "Express delivery goes live tomorrow, can someone flip the flag '
        'in config.json?" Can you do that?',
    ),
    "rename-rotate-logs": (
        "Someone took rotate_logs for a variable in code review today, so let's give the "
        "function a clearer name: rotate_log_files. It's defined in scripts/lib.sh and "
        "called from scripts/backup.sh.",
    ),
    "error-attribute": (
        "$ python3 report.py\nTraceback (most recent call last):\n"
        '  File "/home/ana/shop/report.py", line 27, in <module>\n    main()\n'
        '  File "/home/ana/shop/report.py", line 22, in main\n'
        "    for line in build_report(load_demo()):\n"
        "                ^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        '  File "/home/ana/shop/report.py", line 16, in build_report\n'
        "    low = inv.lowstock()\n          ^^^^^^^^^^^^\n"
        "AttributeError: 'Inventory' object has no attribute 'lowstock'. Did you mean: "
        "'low_stock'?\n\nfix?",
    ),
    "yaml-worker-second": (
        "OPS-219 (orders queue lag). Action: worker replicas 1 -> 2 in deploy.yaml.",
    ),
    "js-welcome-ten": (
        "Marketing's sweetening the welcome offer, so folks using WELCOME5 get ten percent "
        "off starting Monday instead of five. Can you update src/cart.js?",
    ),
    "json-stock-retries": (
        "config.json tweaks:\n- services.stock.retries: 5 (was 3)\n- leave the backoff as it is",
    ),
    "error-command-not-found": (
        "Ticket 377 - scripts/summary.sh broken: `line 12: akw: command not found`. "
        "Expected: it prints the orders and revenue summary again. Please fix.",
    ),
    "toml-mail-host": (
        'Message from our IT contractor: "The new relay is smtp.mailhub.example, please '
        'point the back office at it." Could you change the setting?',
    ),
    "js-green-tea-five": (
        "gren tea in the sample order (src/index.js) shoud be 5.00 not 4.50, can you change it",
    ),
    "toml-tax-included": (
        "Our shelf prices have VAT in them already. Is there a setting that tells the back "
        "office that? If so, please set it.",
    ),
    "toml-open-at-eight": (
        "Quick one - the counter won't be staffed till 8 from now on, so the opening time "
        "needs to move an hour later, please.",
    ),
    "toml-deposit-sixty": ("deposit: 50 -> 60 in station.toml",),
    "service-every-500": (
        "New schedule from the workshop:\n- bikes get serviced every 500 km (was 400)\n"
        "- the figure is in fleet.py and in station.toml, keep them the same",
    ),
    "rename-give-back": (
        "Can we rename give_back to return_bike? Update fleet.py and its tests, and the test "
        "suite should still pass afterward.",
    ),
    "toml-pump-half-hour": ("Pump max run: 1800 seconds please (it's 25 minutes now).",),
    "yaml-tank-alert-four-hours": (
        "the tank low alert pings us every 2 hrs and its driving everyone mad - can u make it "
        "every 4 hrs instead",
    ),
    "json-chart-two-days": ("Dashboard chart: 24h -> 48h.",),
    "sh-keep-twelve-logs": (
        'Sam asked: "Can rotate.sh hang on to twelve archived watering logs instead of six? '
        'I needed an old one last week and it was gone." Could you make that change?',
    ),
    "error-flow-name": (
        "Ticket 431 - watering plan down since this morning. python3 plan.py ends in "
        "NameError: name 'FLOW_LITERS_PER_MINUTE' is not defined; schedule.py spells the "
        "constant FLOW_LITRES_PER_MINUTE. Please fix valve_minutes.",
    ),
    "rename-thirsty": (
        "Rename, please:\n- House.thirsty -> House.needs_water (beds.py)\n- the call in "
        "plan.py\n- test_beds.py too",
    ),
    "json-kiosk-contrast": ("kiosk/shelves.json: high_contrast on.",),
    "toml-fewer-croissants": (
        'Note from Mags on the counter: "Binned a dozen croissants again today. Can we go '
        'down to 24 for the counter?" Please change the bake.',
    ),
    "yaml-post-office-closed": (
        "deliveries.yaml: Post Office Stores off the village round (closed for good).",
    ),
    "sourdough-price-rise": (
        "Price change for Monday:\n- sourdough £4.20 -> £4.50\n- the counter screen shows "
        "prices too, so update it there as well",
    ),
    "toml-juniors-from-twelve": (
        "Could twelve and thirteen year olds be allowed to helm alone now? The committee's "
        "lowered the age to 12 - please change club.toml.",
    ),
    "yaml-pontoon-fee": (
        "From Len: \"Pontoon's £450 for the season from April, swinging and trot stay the "
        'same." Can you put it in?',
    ),
    "sh-hours-top-three": (
        "also, tools/hours.sh - make the default 3 boats insted of 5? I still want to be able "
        "to pass a number.",
    ),
    "error-skipper-tool": (
        "The skipper tool's broken for everyone, not just Ann:\n\n"
        '$ bash tools/skipper.sh "Gill Marsh" 2026-05\n'
        "tools/skipper.sh: line 17: log_okay: command not found\n\n"
        "I reckon it's meant to be one of the helpers in tools/lib.sh. Mend it please?",
    ),
    "toml-doors-three-quarters": (
        "Doors currently open at 7pm for a 7.30 curtain. Fiona wants them open at quarter to "
        "seven instead - please change the setting, not the show times.",
    ),
    "error-sales-tool": (
        "Evening! Before the committee meets, could you look at the sales tool? It just prints "
        "`tools/sales.sh: line 13: SALE_LOG: unbound variable` and stops. Ta.",
    ),
    "error-wheelchair-key": (
        "$ python3 runsheet.py\nTraceback (most recent call last):\n  ...\n"
        '  File "/home/janet/minibus/runsheet.py", line 27, in sheet\n'
        '    book = sample_day(bus["seats"], bus["wheelchair_spaces"])\n'
        "                                    ~~~^^^^^^^^^^^^^^^^^^^^^\n"
        "KeyError: 'wheelchair_spaces'\n\n"
        "runsheet.py hasn't changed, I only tidied minibus.toml. Please get it printing again.",
    ),
    "rename-zone-of": (
        "Janet keeps mixing up zone_of with Place.zone, so let's call the function fare_zone "
        "instead. Change it everywhere it's used, test_minibus.py included, and keep the "
        "tests passing.",
    ),
}

#: A tenth wording of each, written during the forty-third round, before its rules and
#: before any run of them, by a writer who saw the tasks and the earlier wordings but not
#: the rules: run once on the code before the round's rules and once after them.
REWORDED_TENTH: dict[str, tuple[str, ...]] = {
    "toml-debug-off": ("chore(config): switch debug off in settings.toml for the release build",),
    "error-name-totl": (
        "Is `totl` on the total value line of report.py meant to be `total`? Running python3 "
        "report.py stops with NameError: name 'totl' is not defined. If so, please correct it.",
    ),
    "error-unbound-variable": (
        "CI job `build` failed:\n\n"
        '  + mkdir -p "$OUTDIR"\n'
        "  scripts/build.sh: line 10: OUTDIR: unbound variable\n"
        "  Error: Process completed with exit code 1.\n\n"
        "I think the variable is declared under a slightly different name near the top. "
        "Please fix scripts/build.sh.",
    ),
    "rename-round-money": (
        "Review comment on pricing.py line 9: `round_money` undersells what it does, it rounds "
        "to whole cents. Suggest `round_cents` instead; report.py imports it, so rename it "
        "there too.",
    ),
    "rename-slugify": (
        "- [ ] rename slugify to toSlug in src/format.js and src/index.js (the order slug "
        "printed by the sample order must stay the same)",
    ),
    "tax-rate-both": (
        "Heads up: the sales tax rate changed from 20% to 23%. Could you update TAX_RATE in "
        "pricing.py and the [tax] rate in settings.toml so both say 0.23?",
    ),
    "toml-pool-size": (
        "Our DBA says the back office can safely hold 16 database connections. Please set "
        "pool_size to that (it's 8 in settings.toml).",
    ),
    "error-unknown-coupon": (
        "hey, node src/index.js crashes w/ `Error: unknown coupon SPRNG10` - pretty sure the "
        "sample order just has the spring coupon code mistyped. can u fix it in index.js?",
    ),
    "rename-cart-total": (
        "refactor: rename cartTotal to orderTotal\n\n"
        "Touches src/cart.js (the function and its export) and src/index.js (the import and "
        "the call).",
    ),
    "json-express-on": (
        "express delivery starts tomorrow so set express_delivery to true in config.json thanks",
    ),
    "rename-rotate-logs": (
        "For consistency with our other helpers I'd like the shell function rotate_logs in "
        "scripts/lib.sh renamed to rotate_log_files, along with its call in scripts/backup.sh. "
        "Nothing else in either script should change.",
    ),
    "error-attribute": (
        "Why does python3 report.py throw AttributeError: 'Inventory' object has no attribute "
        "'lowstock'? I think the call on line 16 of report.py is just missing an underscore. "
        "Could you fix it?",
    ),
    "yaml-worker-second": (
        "Could deploy.yaml run the worker as two replicas rather than one? The orders queue "
        "was past 4,000 jobs this morning.",
    ),
    "js-welcome-ten": (
        "Per Jo in sales: WELCOME5 is worth 10 percent now, effective today. The code keeps "
        "its name, only its value in COUPONS (src/cart.js) changes.",
    ),
    "json-stock-retries": (
        "nit on config.json: services.stock.retries is 3, and the stock service is flaky under "
        "load. Make it 5; the other services can stay as they are.",
    ),
    "error-command-not-found": (
        "summary.sh's been broken since Friday: `bash scripts/summary.sh` gives 'line 12: akw: "
        "command not found'. Reckon someone fat-fingered awk. Sort it?",
    ),
    "toml-mail-host": (
        "Subject: mail relay change\n\n"
        "Hi, from Monday our outgoing relay is smtp.mailhub.example (smtp.shop.example is "
        "being retired). Please update smtp_host in settings.toml; port and sender stay the "
        "same.",
    ),
    "js-green-tea-five": (
        "Can we make the green tea in the sample order (src/index.js) a round five euros "
        "instead of 4.50?",
    ),
    "toml-tax-included": (
        "Our accountant pointed out that every price we list is VAT-inclusive, yet "
        "settings.toml has included_in_prices = false. Please set it to true.",
    ),
    "toml-open-at-eight": (
        "Station hours change: we open at 08:00 from next Monday (currently 07:00). Closing "
        "stays at 21:00. Update station.toml please.",
    ),
    "toml-deposit-sixty": ("can u bump the bike deposit up a tenner to £60, its 50 atm",),
    "service-every-500": (
        "TODO before the new season:\n"
        "1. service interval goes from 400km to 500km\n"
        "2. keep fleet.py (SERVICE_EVERY_KM) and station.toml (service_every_km) in step",
    ),
    "rename-give-back": (
        "give_back() should be return_bike() - we say 'return' everywhere else on the counter. "
        "Please rename it in fleet.py and test_fleet.py; the tests must still pass.",
    ),
    "toml-pump-half-hour": (
        "From Sam's allotment meeting notes: \"pump may run thirty minutes at most, not "
        'twenty-five." Can you change max_run_minutes in greenhouse.toml?',
    ),
    "yaml-tank-alert-four-hours": (
        "Is there a way to have the low-tank alert repeat only every four hours? Every two is "
        "too noisy. If it's the tank-low rule in alerts.yaml, please change it there.",
    ),
    "json-chart-two-days": (
        "the dashbaord chart only goes back 24 hours, could it show 48 instead",
    ),
    "sh-keep-twelve-logs": (
        "We only ever have six archived watering logs and the committee wants a longer "
        "history. Could tools/rotate.sh keep twelve of them by default?",
    ),
    "error-flow-name": (
        "python3 plan.py -> NameError: name 'FLOW_LITERS_PER_MINUTE' is not defined "
        "(schedule.py:23, in valve_minutes). We spell it litres here. Fix?",
    ),
    "rename-thirsty": (
        "- [ ] rename House.thirsty to needs_water (beds.py, plan.py, test_beds.py); the "
        "plan's output and the tests shouldn't change",
    ),
    "json-kiosk-contrast": (
        "Does the kiosk have a high-contrast option? A member with low vision asked at the "
        "desk. If it's in kiosk/shelves.json, please turn it on.",
    ),
    "toml-fewer-croissants": (
        "sent from my phone: counter croissants 24 not 36 from tmrw pls, bakery.toml",
    ),
    "yaml-post-office-closed": (
        "The Post Office Stores in the village shut its doors for good on Friday. Please take "
        "it off the village round's stops in deliveries.yaml.",
    ),
    "sourdough-price-rise": (
        "Hi, flour's gone up again, so from Tuesday a sourdough loaf is £4.50 instead of "
        "£4.20. Please change it in prices.py and in counter/menu.json for the screen. Leave "
        "the sales log as it is.",
    ),
    "toml-juniors-from-twelve": (
        "From the committee minutes: 'Agreed that juniors aged 12 and over may helm without "
        "an adult aboard.' Please update min_helm_age in club.toml to match.",
    ),
    "yaml-pontoon-fee": (
        "pontoon berths r £450/season now (were 420), cn you update moorings.yaml",
    ),
    "sh-hours-top-three": (
        "tools/hours.sh: a default of 5 boats is too long for the noticeboard, 3 please. "
        "Passing a number should still override it.",
    ),
    "error-skipper-tool": (
        'Did someone rename a helper? bash tools/skipper.sh "Ann Rowe" now fails with '
        "`tools/skipper.sh: line 17: log_okay: command not found`. Could you fix skipper.sh?",
    ),
    "toml-doors-three-quarters": (
        "Doors: 30 min -> 45 min before curtain up, in theatre.toml, starting with "
        "Saturday's show.",
    ),
    "error-sales-tool": (
        'Margaret just texted: "sales thing says tools/sales.sh: line 13: SALE_LOG: unbound '
        "variable, can't get the numbers\". Can you fix the script for her?",
    ),
    "error-wheelchair-key": (
        "My fault, I think: I renamed something while tidying minibus.toml and now python3 "
        "runsheet.py gives KeyError: 'wheelchair_spaces' (runsheet.py line 27). Put the "
        "setting back the way runsheet.py expects, please.",
    ),
    "rename-zone-of": (
        "refactor(places): zone_of -> fare_zone\n\n"
        "Place.zone and zone_of() kept getting mixed up. Rename it across places.py, fares.py "
        "and test_minibus.py; the tests must still pass.",
    ),
}

#: An eleventh wording of each, written during the forty-fourth round, before its rules and
#: before any run of them, by a writer who saw the tasks and the earlier wordings but not
#: the rules: run once on the code before the round's rules and once after them.
REWORDED_ELEVENTH: dict[str, tuple[str, ...]] = {
    "toml-debug-off": (
        "Security review, finding 3 (medium): settings.toml has debug = true under [app], "
        "which must not reach production. Remediation: set debug to false. No other setting "
        "should change.",
    ),
    "error-name-totl": (
        "Hello, when I am running python3 report.py it is giving the error NameError: name "
        "'totl' is not defined. I think it is a spelling mistake of total. Kindly correct it "
        "in report.py so the report will print again.",
    ),
    "error-unbound-variable": (
        "**Bug:** build script fails\n\n"
        "**Steps:** run `bash scripts/build.sh` from the project root\n\n"
        "**Actual:** `scripts/build.sh: line 10: OUTDIR: unbound variable`\n\n"
        "**Expected:** the build finishes and writes dist/manifest.txt\n\n"
        "Please fix scripts/build.sh.",
    ),
    "rename-round-money": (
        "Action items from Tuesday's review:\n"
        "1. round_money -> round_cents (defined in pricing.py, imported and called in "
        "report.py)\n"
        "2. nothing else in this pass; the stock report should print the same as before",
    ),
    "rename-slugify": (
        "Review comment on src/format.js:\n\n> function slugify(title) {\n\n"
        "We're moving our helpers to toX names, so let's start here: please rename this to "
        "toSlug, along with the export and the import and call in src/index.js.",
    ),
    "tax-rate-both": (
        "Forwarding from our accountant:\n\n> Just a reminder that the standard rate goes "
        "from 20% to 23% at the start of next month, so please update your systems.\n\n"
        "We keep it in two places, TAX_RATE in pricing.py and rate under [tax] in "
        "settings.toml. Could you set both to 0.23?",
    ),
    "toml-pool-size": (
        "The back office log has been full of these since the sale started:\n\n"
        "  WARNING database pool exhausted (8 of 8 connections in use), request waiting\n\n"
        "Please raise pool_size in settings.toml to 16.",
    ),
    "error-unknown-coupon": (
        "Is SPRNG10 a code we ever issued? node src/index.js dies with 'Error: unknown coupon "
        "SPRNG10', and COUPONS in src/cart.js only has SPRING10 and WELCOME5. I'd guess the "
        "sample order in src/index.js has it mistyped; please correct it there.",
    ),
    "rename-cart-total": (
        "Hello, please can you rename the function cartTotal into orderTotal? It is defined "
        "and exported in src/cart.js and also it is used in src/index.js. The sample order "
        "must print the same total as before.",
    ),
    "json-express-on": (
        "The changelog for Thursday's release has this line:\n\n"
        "  - Express delivery is now offered at checkout.\n\n"
        "The config doesn't match yet: express_delivery under features in config.json is "
        "still false. Please set it to true.",
    ),
    "rename-rotate-logs": (
        "Hi! I've been going through our shell scripts to make the names more descriptive, "
        "and rotate_logs is next on my list. Would you rename it to rotate_log_files? It's "
        "defined in scripts/lib.sh, and scripts/backup.sh calls it. I'd like the diff to be "
        "just the rename, please, no reformatting or other tidying in either file.",
    ),
    "error-attribute": (
        "report.py crashes with AttributeError on lowstock\n\n"
        "```\n$ python3 report.py\n...\n    low = inv.lowstock()\n"
        "AttributeError: 'Inventory' object has no attribute 'lowstock'. Did you mean: "
        "'low_stock'?\n```\n\n"
        "The method on Inventory is low_stock, so report.py should be calling that. Fix "
        "needed in report.py.",
    ),
    "yaml-worker-second": (
        "[FIRING:1] OrdersQueueBacklog\nqueue=orders depth=5212 threshold=1000 for=20m\n\n"
        "That alert has been going off all morning and the worker can't catch up. Run it "
        "with 2 replicas in deploy.yaml.",
    ),
    "js-welcome-ten": (
        "Story: bigger welcome discount\n\nAcceptance criteria:\n"
        "- an order using WELCOME5 gets 10% off (was 5%)\n"
        "- the code stays WELCOME5\n"
        "- SPRING10 unchanged, no new coupons\n\n"
        "The coupon values live in COUPONS in src/cart.js.",
    ),
    "json-stock-retries": (
        "Hello, the stock service is not so stable these days and sometimes the checkout "
        "abandons too early. Could you put the retries of the stock service to 5 in "
        "config.json, please? For the other services nothing changes.",
    ),
    "error-command-not-found": (
        "Reviewing the last change to scripts/summary.sh: line 12 calls `akw` instead of "
        "`awk`, so `bash scripts/summary.sh` now stops with 'akw: command not found'. Please "
        "fix it before we merge.",
    ),
    "toml-mail-host": (
        "config: send outgoing mail via smtp.mailhub.example\n\n"
        "smtp.shop.example is being retired at the end of the month. Only smtp_host under "
        "[mail] in settings.toml changes; the sender and the port stay.",
    ),
    "js-green-tea-five": (
        'Message from Lena on the shop floor: "the demo order still rings up green tea at '
        "4.50, it's been 5 for a week\". Can you change the green tea price in src/index.js "
        "to 5?",
    ),
    "toml-tax-included": (
        "All our listed prices are gross, with the tax already in them. So shouldn't "
        "included_in_prices under [tax] in settings.toml be true? Please set it to true.",
    ),
    "toml-open-at-eight": (
        "Sign going up on the door next week:\n\n"
        "  RIVERSIDE BIKES - NEW HOURS\n  Open 8:00 am to 9:00 pm\n\n"
        "Can you make the opening time in station.toml match it? Closing is unchanged.",
    ),
    "toml-deposit-sixty": ("station.toml: deposit = 60",),
    "service-every-500": (
        "Hi, our mechanic tell us the bikes need the service each 500 km now, not each 400 "
        "km. Please change it in fleet.py and in station.toml, both have to be the same "
        "number.",
    ),
    "rename-give-back": (
        "fleet.py, `def give_back(`: nit, could this be `return_bike`? That's the word the "
        "counter staff use. The test in test_fleet.py calls it too, so rename it there, and "
        "the suite should stay green.",
    ),
    "toml-pump-half-hour": (
        "Watered the back beds by hand again last night: the pump stops after 25 minutes, "
        "before it ever gets to them. Please put max_run_minutes in greenhouse.toml up to 30.",
    ),
    "yaml-tank-alert-four-hours": (
        "#greenhouse on Saturday:\n\n"
        "  08:10 tank-low: tank_level_percent 14 (below 15)\n"
        "  10:10 tank-low: tank_level_percent 14 (below 15)\n"
        "  12:10 tank-low: tank_level_percent 13 (below 15)\n\n"
        "Yes, we know. Could the tank-low rule in alerts.yaml repeat every 240 minutes "
        "instead of every 120?",
    ),
    "json-chart-two-days": (
        "As a grower who only looks at the dashboard every other day, I want the sensor chart "
        "to cover the last 48 hours instead of 24, so I don't miss what happened yesterday. "
        "(It's chart.hours in dashboard/sensors.json.)",
    ),
    "sh-keep-twelve-logs": (
        "Hello, I'm the allotment committee's secretary and not very technical, so forgive "
        "me if I get the words wrong. When the watering log is rotated, only the six most "
        "recent old logs are kept in the archive. Could it keep twelve instead? I'm told the "
        "script is tools/rotate.sh.",
    ),
    "error-flow-name": (
        "Handover note: plan.py has been failing since yesterday's edit to schedule.py. "
        "valve_minutes uses FLOW_LITERS_PER_MINUTE, but the constant is defined as "
        "FLOW_LITRES_PER_MINUTE, so it's a NameError. I didn't get to it; could you fix it "
        "today?",
    ),
    "rename-thirsty": (
        "Issue: House.thirsty() is hard to read at the call site\n\n"
        "Proposal: rename it to needs_water(). Defined in beds.py, called in plan.py and "
        "test_beds.py. No change in behaviour; the plan and the tests should give the same "
        "results.",
    ),
    "json-kiosk-contrast": (
        "A note was left at the issue desk: 'The catalogue screen is too faint for my eyes.' "
        "There's a high_contrast setting for the screen in kiosk/shelves.json; please turn "
        "it on.",
    ),
    "toml-fewer-croissants": (
        "We've been through the waste sheets for the last month and we're binning about a "
        "dozen croissants most days. Starting tomorrow, could the counter bake go from 36 "
        "croissants to 24? It's under [counter] in bakery.toml; leave the orders as they are.",
    ),
    "yaml-post-office-closed": (
        'Jess texted from the van: "PO Stores is boarded up, sign says closed for good. Can '
        'it come off my list?" Please take the Post Office Stores off the village round in '
        "deliveries.yaml.",
    ),
    "sourdough-price-rise": (
        "The sourdough price rise never went in. We've charged £4.50 a loaf since Monday, but "
        "prices.py and the counter screen (counter/menu.json) both still say £4.20. Please "
        "update both.",
    ),
    "toml-juniors-from-twelve": (
        "Our day sheet still prints 'juniors helm alone from 14', but the committee lowered "
        "that to 12 last month. Can you change the setting it comes from?",
    ),
    "yaml-pontoon-fee": (
        "Fees per season:\n\n"
        "| mooring  | now | new |\n|----------|-----|-----|\n"
        "| pontoon  | 420 | 450 |\n| swinging | 185 | 185 |\n| trot     | 140 | 140 |\n\n"
        "Only the pontoon goes up. Please update moorings.yaml.",
    ),
    "sh-hours-top-three": (
        "Feature request: shorter default for tools/hours.sh\n\n"
        "Right now `bash tools/hours.sh` lists 5 boats. I'd like it to list 3 when no number "
        "is given; passing a number (e.g. `bash tools/hours.sh 6`) should keep working as it "
        "does now.",
    ),
    "error-skipper-tool": (
        "Pete says the skipper lookup has stopped working. This is what he gets:\n\n"
        '$ bash tools/skipper.sh "Ann Rowe"\n'
        "tools/skipper.sh: line 17: log_okay: command not found\n\n"
        "tools/lib.sh has a log_ok, so I think skipper.sh just calls it by the wrong name. "
        "Please fix skipper.sh.",
    ),
    "toml-doors-three-quarters": (
        "Tonight's house report says 'doors 19:00' for a 19:30 curtain up. From now on we "
        "want the doors open at 18:45, i.e. 45 minutes before, so please change "
        "doors_open_minutes in theatre.toml.",
    ),
    "error-sales-tool": (
        "fix(tools): sales.sh reads SALE_LOG, but lib.sh defines SALES_LOG\n\n"
        "$ bash tools/sales.sh\ntools/sales.sh: line 13: SALE_LOG: unbound variable\n\n"
        "Correct the name in tools/sales.sh so the committee's sales figures print again.",
    ),
    "error-wheelchair-key": (
        "Sorry to bother you again. Keith says the run sheet won't come out, and I get this "
        "when I try:\n\n"
        '  File "/home/janet/minibus/runsheet.py", line 27, in sheet\n'
        '    book = sample_day(bus["seats"], bus["wheelchair_spaces"])\n'
        "KeyError: 'wheelchair_spaces'\n\n"
        "The only thing I touched was the [bus] part of minibus.toml yesterday. Could you put "
        "minibus.toml right? runsheet.py was fine.",
    ),
    "rename-zone-of": (
        "Type: refactor\nSummary: rename zone_of to fare_zone\n"
        "Where: places.py (definition), fares.py, test_minibus.py\n"
        "Done when: no zone_of left in the code, the tests pass, the run sheet is unchanged",
    ),
}

#: A twelfth wording of each, written during the forty-fifth round, before its rules and
#: before any run of them, by a writer who saw the tasks and the earlier wordings but not
#: the rules: run once on the code before the round's rules and once after them.
REWORDED_TWELFTH: dict[str, tuple[str, ...]] = {
    "toml-debug-off": (
        "Customers are getting full Python tracebacks on the back office's error pages, and "
        "I'm fairly sure it's because debug is still true under [app] in settings.toml. "
        "Please set it to false.",
    ),
    "error-name-totl": (
        "Subject: Cron <ana@backoffice> cd ~/shop && python3 report.py\n\n"
        "Traceback (most recent call last):\n  ...\n"
        "NameError: name 'totl' is not defined\n\n"
        "That's been the nightly stock report mail two nights running. Get report.py "
        "printing the report again, please.",
    ),
    "error-unbound-variable": (
        "First day on the project, so sorry if this is obvious: I ran `bash scripts/build.sh` "
        "to build the web front and it stopped with `scripts/build.sh: line 10: OUTDIR: "
        "unbound variable`. The top of the script sets OUT_DIR, with an underscore. Could "
        "you fix the script so the build goes through?",
    ),
    "rename-round-money": (
        "We've agreed a naming rule for the back office: a rounding helper is named after "
        "what it rounds to. By that rule round_money should be round_cents. Please apply it: "
        "rename the function in pricing.py and every use of it in report.py, the import and "
        "the calls.",
    ),
    "rename-slugify": (
        "[09:41] kai: slugify or toSlug for the helper in format.js?\n"
        "[09:42] rosa: toSlug, like our other toX helpers\n"
        "[09:42] kai: ok, toSlug it is\n\n"
        "That's the decision. Please rename slugify to toSlug in src/format.js, and in "
        "src/index.js, which requires and calls it.",
    ),
    "tax-rate-both": (
        "Bom dia! From next month the IVA here goes up to 23%. The shop keeps it in two "
        "places, TAX_RATE in pricing.py and rate in settings.toml; please update both to "
        "0.23. Obrigada!",
    ),
    "toml-pool-size": (
        "Quick sizing: 3 server workers, each needing up to 5 database connections at peak, "
        "plus one spare for maintenance, makes 16. Set pool_size under [database] in "
        "settings.toml to 16.",
    ),
    "error-unknown-coupon": (
        "Someone's edit to src/index.js turned the sample order's coupon from SPRING10 into "
        "SPRNG10, so `node src/index.js` now dies with 'Error: unknown coupon SPRNG10'. "
        "Change it back to SPRING10 in index.js.",
    ),
    "rename-cart-total": (
        "Suggested change on src/cart.js:\n\n```suggestion\nfunction orderTotal(cart) {\n```\n\n"
        "It totals an order, not a cart. Apply it, and rename cartTotal to orderTotal in the "
        "module.exports line and in src/index.js (the require and the call) as well.",
    ),
    "json-express-on": (
        "Express delivery rollout, step 2 of 3, flip the flag: in config.json set "
        "features.express_delivery to true. (Step 3 is the customer email, not yours.)",
    ),
    "rename-rotate-logs": (
        "s/rotate_logs/rotate_log_files/g in scripts/lib.sh and scripts/backup.sh please, "
        "and touch nothing else in those two files.",
    ),
    "error-attribute": (
        ">>> from inventory import load_demo\n>>> inv = load_demo()\n>>> inv.lowstock()\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        "AttributeError: 'Inventory' object has no attribute 'lowstock'. Did you mean: "
        "'low_stock'?\n>>> inv.low_stock()\n['B-220']\n\n"
        "So the method is fine; report.py just calls it by the wrong name. Fix the call in "
        "report.py so python3 report.py runs.",
    ),
    "yaml-worker-second": (
        "Can we go N+1 on the worker? It runs as a single replica in deploy.yaml; make that "
        "2, and leave api, db and cache exactly as they are.",
    ),
    "js-welcome-ten": (
        'A customer emailed: "Your welcome email says WELCOME5 gives 10% off but I only got '
        '5%." Marketing confirms the email is right. Please make WELCOME5 worth 10 in '
        "COUPONS in src/cart.js; the code keeps its name.",
    ),
    "json-stock-retries": (
        "This is how the stock entry under services in config.json should read:\n\n"
        "```json\n"
        '"stock": {\n'
        '  "url": "http://127.0.0.1:9412/stock",\n'
        '  "retries": 5,\n'
        '  "backoff_ms": 100\n'
        "}\n```\n\n"
        "Only retries differs from what's there now. Please make it so.",
    ),
    "error-command-not-found": (
        "akw → awk on line 12 of scripts/summary.sh, please. Right now `bash "
        "scripts/summary.sh` just says 'akw: command not found' and we need the orders "
        "summary tonight.",
    ),
    "toml-mail-host": (
        "Mailhub's onboarding email says:\n\n"
        "> Your SMTP relay: smtp.mailhub.example, port 587, STARTTLS required.\n\n"
        "We're on 587 already, so only the host changes. Switch smtp_host in settings.toml "
        "over to it.",
    ),
    "js-green-tea-five": (
        "When I run node src/index.js, the four green teas should come to 20.00 € and the "
        "total to 49.95 €, i.e. green tea at 5 a unit instead of 4.50. Update its price in "
        "the sample order's catalogue in src/index.js.",
    ),
    "toml-tax-included": (
        "Went through the [tax] table of settings.toml with our bookkeeper:\n\n"
        "  rate = 0.2                   correct\n"
        "  included_in_prices = false   wrong, every price we show includes tax\n\n"
        "Please change included_in_prices to true and leave the rate alone.",
    ),
    "toml-open-at-eight": ("Station opens at 8 am from Monday, not 7. station.toml, please.",),
    "toml-deposit-sixty": (
        "Our insurer wants a bigger deposit on each hire after the spring thefts: sixty "
        "pounds from Monday, up from fifty. Please change it; it's under [payments] in "
        "station.toml.",
    ),
    "service-every-500": (
        "Workshop here. From the next round of services we're on a 500 km cycle (about 310 "
        "miles) rather than 400 km. I gather the counter software keeps that figure in "
        "fleet.py and again in station.toml; please update both.",
    ),
    "rename-give-back": (
        'Counter glossary: a rider *returns* a bike; nobody says "give back". So the Fleet '
        "method give_back should be return_bike. Rename it in fleet.py and where "
        "test_fleet.py calls it, then run the tests; all 8 should still pass.",
    ),
    "toml-pump-half-hour": (
        "The pump keeps cutting out before the last beds get their water. Allow it ½ hr per "
        "run instead of 25 min; it's the [pump] limit in greenhouse.toml.",
    ),
    "yaml-tank-alert-four-hours": (
        "While we wait for rain the tank will sit below 15% for days, and the tank-low alert "
        "buzzes everyone's phone every 2 h. Change that rule in alerts.yaml to repeat every "
        "4 h. The other alerts keep their timings.",
    ),
    "json-chart-two-days": (
        "Looking at the dashboard this morning, the sensor chart only starts at about 7 "
        "yesterday, so the frost the night before is off the left edge. Widen it to 48 "
        "hours: chart.hours in dashboard/sensors.json.",
    ),
    "sh-keep-twelve-logs": (
        "$ ls archive/\n"
        "watering-2026-05-04.csv  watering-2026-05-11.csv  watering-2026-05-18.csv\n"
        "watering-2026-05-25.csv  watering-2026-06-01.csv  watering-2026-06-08.csv\n\n"
        "Six, always six; tools/rotate.sh throws the older ones away. Have it keep 12 by "
        "default.",
    ),
    "error-flow-name": (
        "This is the edit to schedule.py that went in yesterday:\n\n"
        "```\n"
        "-    return math.ceil(litres / FLOW_LITRES_PER_MINUTE)\n"
        "+    return math.ceil(litres / FLOW_LITERS_PER_MINUTE)\n"
        "```\n\n"
        "Since then python3 plan.py fails with NameError: name 'FLOW_LITERS_PER_MINUTE' is "
        "not defined. Undo that change.",
    ),
    "rename-thirsty": (
        "Two things, in order:\n"
        "1. find everything that calls House.thirsty()\n"
        "2. rename the method to needs_water(), in beds.py where it's defined and at each of "
        "those calls, test_beds.py included\n\n"
        "Afterwards python3 -m unittest should pass as before.",
    ),
    "json-kiosk-contrast": (
        "Accessibility audit, item K-2 (kiosk): text contrast fails WCAG AA. Recommended "
        "fix: turn on the screen's high-contrast mode, screen.high_contrast in "
        "kiosk/shelves.json. Please apply it and leave the font size at 18.",
    ),
    "toml-fewer-croissants": (
        "Over the last two weeks we sold 21 to 23 croissants a day over the counter and baked "
        "36. Let's bake 24 for the counter from tomorrow: change croissant under [counter] in "
        "bakery.toml. Orders aren't affected.",
    ),
    "yaml-post-office-closed": (
        "From tomorrow the village round in deliveries.yaml should be:\n\n"
        "  - The Ship Inn\n  - Marrowby Primary School\n  - St Anne's Church Hall\n\n"
        "The Post Office Stores has closed, so it comes out; the other stops stay in that "
        "order.",
    ),
    "sourdough-price-rise": (
        "The new price list for the window says sourdough £4.50 a loaf (it was £4.20). Make "
        "the code agree: prices.py, and the Sourdough entry in counter/menu.json that feeds "
        "the screen over the counter.",
    ),
    "toml-juniors-from-twelve": (
        "Dinghy instructor here. Several of our 12- and 13-year-olds have passed their solo "
        "assessment and the committee agreed they may helm alone. Please change "
        "min_helm_age in club.toml to 12 (it's 14 now).",
    ),
    "yaml-pontoon-fee": (
        "Dear all,\n\nAt the AGM members approved a pontoon berth fee of four hundred and "
        "fifty pounds for the coming season. The swinging, trot and winter ashore fees are "
        "unchanged. Could the moorings file be updated accordingly?\n\n"
        "Treasurer, Hollesby Sailing Club",
    ),
    "sh-hours-top-three": (
        "Wanted:\n"
        "  bash tools/hours.sh      -> the top 3 boats\n"
        "  bash tools/hours.sh 6    -> the top 6, as now\n\n"
        "At the moment the first one lists 5. Please change the default in tools/hours.sh.",
    ),
    "error-skipper-tool": (
        '$ bash -x tools/skipper.sh "Ann Rowe"\n'
        "+ set -euo pipefail\n  ...\n"
        "+ WHO='Ann Rowe'\n+ MONTH=\n+ LOG=data/outings.csv\n"
        "+ log_okay data/outings.csv\n"
        "tools/skipper.sh: line 17: log_okay: command not found\n\n"
        "The function in tools/lib.sh is log_ok. Fix the call in skipper.sh so the lookup "
        "works again.",
    ),
    "toml-doors-three-quarters": (
        "On full nights the ushers can't get everyone seated in half an hour. From the next "
        "show, open the doors 45 min before curtain up (doors_open_minutes in theatre.toml).",
    ),
    "error-sales-tool": (
        "$ bash tools/sales.sh\n"
        "tools/sales.sh: line 13: SALE_LOG: unbound variable\n"
        "$ grep -n 'SALES\\?_LOG' tools/*.sh\n"
        'tools/day.sh:14:LOG="${2:-$SALES_LOG}"\n'
        'tools/lib.sh:5:SALES_LOG="data/sales.csv"\n'
        'tools/sales.sh:13:LOG="${1:-$SALE_LOG}"\n\n'
        "sales.sh is the odd one out. Fix it there, not in lib.sh.",
    ),
    "error-wheelchair-key": (
        "The only thing I changed in minibus.toml yesterday was this, under [bus]:\n\n"
        "  wheelchair_spaces = 2   became   wheelchair_space = 2\n\n"
        "(I thought the singular looked neater.) Now python3 runsheet.py stops with "
        "KeyError: 'wheelchair_spaces'. Put the key back the way runsheet.py wants it.",
    ),
    "rename-zone-of": (
        "Rename symbol: zone_of → fare_zone (defined in places.py). Apply to all "
        "references, fares.py and test_minibus.py included, then run the tests.",
    ),
}
