"""The live web view: every game the hub runs, followed in a browser, and the pages of a
series of games with a running score (a game's `hub.core.play.game.Series`: the chess console's
graphical display). Only a subscriber of the event stream (see docs/web.md).

* `hub.web.options`: ``--web [HOST:]PORT`` and ``$HUB_WEB`` (light: commands import it);
  `hub.web.limits`: allowed host names and per-client limits (light too);
* `hub.web.guard`: the middleware every request passes (hosts, origins, stream shares);
* `hub.web.server`: `serve_web` (start it in a nursery), `start_web` (what ``--web`` does),
  `open_page` (one page of a program's own: a series');
* `hub.web.index`: `GameIndex`, the games as the event stream tells them, and the viewers'
  bounded buffers; `hub.web.views` and `hub.web.render`: what pages show, as JSON and HTML;
* `hub.web.app`: the Starlette routes; `hub.web.records`: finished games from the records
  store; `hub.web.client`: an event-stream reader for tests and benchmarks.
"""

from hub.web.options import add_web_option, web_address, web_from_environment

__all__ = ["add_web_option", "web_address", "web_from_environment"]
