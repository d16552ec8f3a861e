"""What the programs and commands share: usage errors and help, exit statuses on
signals (`run_program`), the demos' narration, plug-in discovery.

May import: `hub.core.model`, `hub.core.io`, `hub.core.play`. Nothing above the core: a
command of a declared game is found through the plug-in, never imported from here.
"""
