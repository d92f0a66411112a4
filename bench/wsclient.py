"""A Streamlit client without a browser: Streamlit 1.67's websocket protocol, as its frontend speaks it, enough to
open a page and move its sliders (bench/workshop.py's protocol learners).

What the server expects (streamlit/web/server/starlette/starlette_websocket.py, streamlit/runtime/app_session.py)
and what the frontend sends (sendRerunBackMsg in streamlit/static/static/js/index.*.js):

- The websocket is ``ws://host:port/_stcore/stream``. Its Sec-WebSocket-Protocol header is reused to carry tokens:
  "streamlit", then an XSRF token, then a session id to reconnect to; the last two are optional (the XSRF token
  only guards the auth cookie; no Origin header is allowed too). Frames are binary protobufs both ways.
- The server runs nothing until the client sends ``BackMsg.rerun_script``, a ``ClientState``. The first one names
  the page by its URL path (``page_name="Training_lab"``, ``page_script_hash=""``); the answer's ``new_session``
  gives the page's hash, and later reruns name the page by it (``page_name=""``).
- Every rerun carries the whole query string (kept up to date from ``page_info_changed``: the lab writes its inputs
  to the URL), the state of every widget the client holds (``WidgetStates``; a slider as ``double_array_value``,
  see ``value_type`` in streamlit/elements/widgets/*.py), the id of the fragment the changed widget is drawn in
  (``delta.fragment_id``: then only that fragment reruns, ``FINISHED_FRAGMENT_RUN_SUCCESSFULLY``), and the hashes
  of the ForwardMsgs the client keeps in its cache (``cached_message_hashes``).
- The forward-message cache (streamlit/runtime/forward_msg_cache.py, scriptrunner_utils/script_run_context.py): a
  ``new_element`` delta of at least ``global.minCachedMessageSize`` (10 kB) comes with ``metadata.cacheable``; the
  client keeps it under its ``hash``, and when a rerun names that hash the server sends a ``ref_hash`` message in its
  place. Entries older than ``new_session.config.max_cached_message_age`` (2) finished runs are dropped, as in
  the frontend. A ``ref_hash`` the client does not hold is an error (the frontend throws too).
"""

from __future__ import annotations

import asyncio
import time
import urllib.request
import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect

FINISHED = {ForwardMsg.FINISHED_SUCCESSFULLY: "app", ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY: "fragment",
            ForwardMsg.FINISHED_WITH_COMPILE_ERROR: "compile error"}  # FINISHED_EARLY_FOR_RERUN: another run follows
WIDGETS = {"slider", "checkbox", "multiselect", "selectbox", "radio", "button", "download_button", "number_input",
           "file_uploader"}  # the inputs the learners use
XSRF_COOKIE = "_streamlit_xsrf"


def widget_state(kind: str, el) -> WidgetState | None:
    """The state the frontend sends for a widget it has just drawn: the value the server set, else the default.
    None for triggers (buttons: only sent when pressed) and for kinds the lab does not use (the server then keeps
    their last value)."""
    s = WidgetState(id=el.id)
    if kind == "slider" and el.type == Slider.SELECT_SLIDER:  # its options' labels (select_slider.py)
        s.string_array_value.data.extend(el.raw_value if el.set_value else [el.options[int(i)] for i in el.default])
    elif kind == "slider":
        s.double_array_value.data.extend(el.value if el.set_value else el.default)
    elif kind == "checkbox":  # st.checkbox and st.toggle
        s.bool_value = el.value if el.set_value else el.default
    elif kind == "multiselect":
        s.string_array_value.data.extend(el.raw_values if el.set_value else [el.options[i] for i in el.default])
    elif kind in ("selectbox", "radio"):
        if el.set_value:
            s.string_value = el.raw_value
        elif el.HasField("default") and 0 <= el.default < len(el.options):
            s.string_value = el.options[el.default]
        else:
            return None  # nothing chosen yet (index=None leaves `default` unset; its 0 is not the first option)
    else:
        return None
    return s


@dataclass
class Widget:
    kind: str  # the Element field: "slider", "checkbox", ...
    element: object  # its last proto (Slider, Checkbox, ...)
    state: WidgetState | None  # what the client sends back for it
    fragment_id: str  # the fragment it is drawn in; "" outside any
    path: tuple[int, ...]  # its delta path: (0 main | 1 sidebar, index, index, ...)
    run: int  # the run that last drew it


class AppClient:
    """One session of a Streamlit app over its websocket. ``problems`` collects what a learner would see as an error
    (an exception element, an error alert, a compile error, an unknown page)."""

    def __init__(self, ws, netloc: str, page_name: str, query: str) -> None:
        self.ws, self.netloc, self.page_name, self.query = ws, netloc, page_name, query
        self.cookies: dict[str, str] = {}  # a browser's cookies (``open(..., browser=True)``)
        self.source: str | None = None  # the local address the websocket comes from (another visitor's machine)
        self.session_id = ""  # the server's id of this session (new_session.initialize)
        self.replies: dict[str, object] = {}  # request id → a file_urls or backend operation response
        self.blocks: dict[tuple[int, ...], object] = {}  # delta path → expandable block (keyed expanders)
        self.block_fragments: dict[tuple[int, ...], str] = {}  # delta path → the fragment it is drawn in
        self.page_hash = ""  # from new_session; names the page once known
        self.widgets: dict[str, Widget] = {}
        self.folded: dict[tuple[int, ...], str] = {}  # a collapsed expander's delta path → its label
        self.cache: dict[str, list] = {}  # hash → [the message's bytes, run count when last used, fragment id]
        self.cache_runs, self.max_age = 0, 2
        self.runs = 0  # new_session messages seen: a run (or fragment run) starts with one
        self.problems: list[str] = []
        self.notices: list[str] = []  # what the app said about the visitor's place in line (serve.line)
        self.toasts: list[str] = []
        self.alerts: list[str] = []  # every alert's text (error, warning, info, success)
        self.link_updates = 0  # page_info_changed messages: address-bar updates
        self.first_chart_at: float | None = None  # time.perf_counter() when the first chart arrived
        self.bytes_in = 0

    @classmethod
    async def open(cls, url: str, *, browser: bool = False, source: str | None = None,
                   cookies: dict | None = None) -> AppClient:
        """Connect to the app serving ``url`` (http://host:port/Page?query), as the frontend does. ``browser``:
        first load the page over HTTP as a browser does and keep its cookies (a load balancer's affinity cookie,
        Streamlit's XSRF cookie), then send them with the websocket, uploads and downloads. ``source``: the local
        address the websocket comes from (127.0.0.2, ...: the server sees another visitor's address). ``cookies``: the
        cookie jar it starts with (another tab of a browser: its cookies; a forger: made-up ones)."""
        u = urlsplit(url)
        client = cls(None, u.netloc, u.path.strip("/"), u.query)
        client.source = source
        client.cookies.update(cookies or {})
        if browser:  # the page, then the health check the frontend polls (it sets Streamlit's XSRF cookie)
            await asyncio.to_thread(client._http, "GET", f"{u.path}?{u.query}")
            await asyncio.to_thread(client._http, "GET", "/_stcore/health")
        await client.connect()
        return client

    def cookie(self, name: str) -> str | None:
        return self.cookies.get(name)

    def _keep_cookies(self, set_cookies: list[str]) -> None:
        """Keep what Set-Cookie headers set, as a browser does (only the name and value matter here)."""
        for header in set_cookies:
            name, _, value = header.split(";", 1)[0].partition("=")
            self.cookies[name.strip()] = value.strip()

    def _cookie_header(self) -> dict:
        return {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}

    async def connect(self, session_id: str = "") -> None:
        """Open the websocket (again, after the server went away: as the frontend, naming the old session)."""
        xsrf = self.cookie(XSRF_COOKIE)
        protocols = ["streamlit", *([xsrf] if xsrf else []), *([session_id] if xsrf and session_id else [])]
        self.ws = await connect(f"ws://{self.netloc}/_stcore/stream", subprotocols=protocols,
                                origin=f"http://{self.netloc}", additional_headers=self._cookie_header(),
                                proxy=None, open_timeout=120, ping_interval=None,  # a browser sends no pings
                                max_size=None,  # the server bounds its messages (server.maxMessageSize)
                                **({"local_addr": (self.source, 0)} if self.source else {}))
        self._keep_cookies(self.ws.response.headers.get_all("Set-Cookie"))  # a balancer may pick a new replica

    async def reconnect(self, timeout: float = 60) -> str:
        """What the frontend does when its connection drops: connect again (through the balancer: to a replica
        that is up) and rerun with the link and widget states it holds; the forward-message cache starts empty."""
        old = self.session_id
        self.cache.clear()
        await self.connect(old)
        return await self.rerun(timeout=timeout)

    def _http(self, method: str, path: str, data: bytes | None = None, headers: dict | None = None) -> bytes:
        req = urllib.request.Request(f"http://{self.netloc}{path}", data=data, method=method,
                                     headers={**self._cookie_header(), **(headers or {})})
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(req, timeout=60) as r:
            self._keep_cookies(r.headers.get_all("Set-Cookie") or [])
            return r.read()

    async def _ask(self, msg: BackMsg, request_id: str, timeout: float = 30):
        """Send a request and read messages until its answer (``replies``) arrives."""
        await self.ws.send(msg.SerializeToString())
        async with asyncio.timeout(timeout):
            while request_id not in self.replies:
                self._handle(await self.ws.recv(decode=False))
        return self.replies.pop(request_id)

    def labelled(self, kind: str, label: str) -> Widget | None:
        return next((w for w in self.widgets.values() if w.kind == kind and w.element.label == label), None)

    async def expand(self, label: str, timeout: float = 60) -> bool:
        """Open a keyed expander (``st.expander(key=..., on_change="rerun")``) and rerun; False when none has it."""
        path, block = next(((p, b) for p, b in self.blocks.items() if b.label == label and b.id), (None, None))
        if block is None:
            return False
        fragment = self.block_fragments.get(path, "")
        self.widgets[block.id] = Widget("expander", block, WidgetState(id=block.id, bool_value=True), fragment,
                                        path, self.runs)
        await self.rerun(fragment, timeout=timeout)
        return True

    async def press(self, label: str, timeout: float = 60) -> str:
        """Press a button (a trigger, sent with this one rerun only, as the frontend does) and wait for the run."""
        button = self.labelled("button", label)
        if button is None:
            raise LookupError(f"no button {label!r}")
        button.state = WidgetState(id=button.element.id, trigger_value=True)
        try:
            return await self.rerun(button.fragment_id, timeout=timeout)
        finally:
            button.state = None

    async def download(self, label: str) -> bytes:
        """Press a download button and fetch its file (from its URL, or, for a file made on click, from the URL
        the server answers with)."""
        button = self.labelled("download_button", label)
        if button is None:
            raise LookupError(f"no download button {label!r}")
        if button.element.url:
            return await asyncio.to_thread(self._http, "GET", urlsplit(button.element.url).path)
        msg, rid = BackMsg(), str(uuid.uuid4())
        op = msg.backend_operation_request
        op.request_id, op.session_id, op.deferred_file.file_id = rid, self.session_id, button.element.deferred_file_id
        reply = await self._ask(msg, rid)
        if reply.error_msg:
            raise RuntimeError(f"download refused: {reply.error_msg}")
        return await asyncio.to_thread(self._http, "GET", urlsplit(reply.deferred_file.url).path)

    async def upload(self, label: str, name: str, data: bytes, timeout: float = 60) -> str:
        """Choose a file in a file uploader, as the frontend does: ask for an upload URL, PUT the file there
        (with the XSRF token), then rerun with the uploader's new state; returns the kind of run."""
        uploader = self.labelled("file_uploader", label)
        if uploader is None:
            raise LookupError(f"no file uploader {label!r}")
        msg, rid = BackMsg(), str(uuid.uuid4())
        msg.file_urls_request.request_id, msg.file_urls_request.session_id = rid, self.session_id
        msg.file_urls_request.file_names.append(name)
        urls = (await self._ask(msg, rid)).file_urls[0]
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
                f"Content-Type: application/json\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        await asyncio.to_thread(self._http, "PUT", urlsplit(urls.upload_url).path, body,
                                {"Content-Type": f"multipart/form-data; boundary={boundary}",
                                 "X-Xsrftoken": self.cookie(XSRF_COOKIE) or ""})
        state = WidgetState(id=uploader.element.id)
        state.file_uploader_state_value.uploaded_file_info.append(
            UploadedFileInfo(name=name, size=len(data), file_id=urls.file_id, file_urls=urls))
        uploader.state = state
        return await self.rerun(uploader.fragment_id, timeout=timeout)

    async def close(self) -> None:
        await self.ws.close()

    async def rerun(self, fragment_id: str = "", timeout: float = 60) -> str:
        """Send a rerun with every widget's state, as the frontend does after an input; wait until the run is over
        (a st.rerun() inside it ends it early: then the run that follows); return "app" or "fragment". Raises
        TimeoutError when no run finished within ``timeout`` s, ConnectionClosed when the server went away."""
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.page_script_hash = self.page_hash
        if not self.page_hash:
            cs.page_name = self.page_name  # the first run: the page by its URL path
        cs.fragment_id = fragment_id
        cs.widget_states.widgets.extend(w.state for w in self.widgets.values() if w.state is not None)
        cs.cached_message_hashes.extend(self.cache)
        ci = cs.context_info  # what the frontend tells of the browser (st.context)
        ci.timezone, ci.timezone_offset, ci.locale, ci.color_scheme = "UTC", 0, "en-US", "light"
        ci.url = f"http://{self.netloc}/{self.page_name}"
        await self.ws.send(msg.SerializeToString())
        async with asyncio.timeout(timeout):
            while True:
                finished = self._handle(await self.ws.recv(decode=False))
                if finished:
                    return finished

    def _handle(self, data: bytes) -> str | None:
        """Take one ForwardMsg in; the kind of run when it is a run's end."""
        self.bytes_in += len(data)
        msg = ForwardMsg.FromString(data)
        kind = msg.WhichOneof("type")
        if kind == "ref_hash":  # a large element the server knows we hold: read it from the cache
            entry = self.cache.get(msg.ref_hash)
            if entry is None:
                self.problems.append(f"cached ForwardMsg miss {msg.ref_hash}")
                return None
            entry[1] = self.cache_runs
            ref = msg
            msg = ForwardMsg.FromString(entry[0])
            msg.metadata.CopyFrom(ref.metadata)
            kind = msg.WhichOneof("type")
        elif msg.metadata.cacheable and msg.hash not in self.cache:
            self.cache[msg.hash] = [data, self.cache_runs, msg.delta.fragment_id]
        if kind == "new_session":
            self.runs += 1
            self.page_hash = msg.new_session.page_script_hash
            self.session_id = msg.new_session.initialize.session_id or self.session_id
        elif kind == "navigation" and msg.navigation.page_script_hash:
            self.page_hash = msg.navigation.page_script_hash  # the page that ran (new_session names the main script)
            self.max_age = msg.new_session.config.max_cached_message_age
        elif kind == "delta":
            self._delta(msg)
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
            self.link_updates += 1
        elif kind == "file_urls_response":
            self.replies[msg.file_urls_response.response_id] = msg.file_urls_response
        elif kind == "backend_operation_response":
            self.replies[msg.backend_operation_response.request_id] = msg.backend_operation_response
        elif kind == "page_not_found":
            self.problems.append(f"page not found: {msg.page_not_found.page_name}")
        elif kind == "session_event" and msg.session_event.HasField("script_compilation_exception"):
            self.problems.append(f"compile error: {msg.session_event.script_compilation_exception.message}")
        elif kind == "script_finished" and msg.script_finished in FINISHED:
            if msg.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                self.problems.append("compile error")  # its session_event (the details) follows
            self._finished(msg)
            return FINISHED[msg.script_finished]
        return None

    def _delta(self, msg: ForwardMsg) -> None:
        path = tuple(msg.metadata.delta_path)
        delta = msg.delta
        if delta.WhichOneof("type") == "add_block":
            block = delta.add_block
            if block.WhichOneof("type") == "expandable" and not block.expandable.expanded:
                self.folded[path] = block.expandable.label
            else:
                self.folded.pop(path, None)
            if block.WhichOneof("type") == "expandable":
                self.blocks[path] = block.expandable
                self.block_fragments[path] = delta.fragment_id
                if block.expandable.id in self.widgets:  # an expander this client opened: still drawn
                    self.widgets[block.expandable.id].run = self.runs
            return
        if delta.WhichOneof("type") != "new_element":
            return
        el = delta.new_element
        kind = el.WhichOneof("type")
        if kind == "vega_lite_chart" and self.first_chart_at is None:
            self.first_chart_at = time.perf_counter()
        if kind == "alert":
            self.alerts.append(el.alert.body)
        if kind == "exception":
            self.problems.append(f"exception: {el.exception.type}: {el.exception.message[:200]}")
        elif kind == "alert" and el.alert.format == Alert.ERROR:
            self.problems.append(f"error alert: {el.alert.body[:200]}")
        elif kind == "alert" and "ahead of yours" in el.alert.body:
            self.notices.append(el.alert.body)
        elif kind == "toast":
            self.toasts.append(el.toast.body)
        if kind not in WIDGETS:
            return
        proto = getattr(el, kind)
        old = self.widgets.get(proto.id)
        state = widget_state(kind, proto)
        if old is not None and not getattr(proto, "set_value", False):
            state = old.state  # the frontend keeps its own value unless the server sets one
        self.widgets[proto.id] = Widget(kind, proto, state, delta.fragment_id, path, self.runs)

    def _finished(self, msg: ForwardMsg) -> None:
        """A run's end: forget the widgets it did not draw again, age the cache (as the frontend does)."""
        fragments = set(msg.metadata.run.fragment_ids)  # empty for a run of the whole page
        self.widgets = {i: w for i, w in self.widgets.items()
                        if w.run == self.runs or (fragments and w.fragment_id not in fragments)}
        self.cache_runs += 1
        for h, (_, used, fragment) in list(self.cache.items()):
            if fragments and (not fragment or fragment not in fragments):
                continue
            if self.cache_runs - used > self.max_age:
                del self.cache[h]

    def sliders(self, unfold: bool) -> list[Widget]:
        """The enabled sliders of the main area; those inside a collapsed expander only when ``unfold``."""
        return [w for w in self.widgets.values()
                if w.kind == "slider" and w.state is not None and not w.element.disabled and w.path[:1] == (0,)
                and (unfold or not any(w.path[:i] in self.folded for i in range(1, len(w.path))))]

    @staticmethod
    def step(w: Widget, up: bool) -> str:
        """Move a slider one step, as an arrow key does (down at its maximum, up at its minimum); what was done."""
        el = w.element
        if el.type == Slider.SELECT_SLIDER:  # one option along
            labels = w.state.string_array_value.data
            i = list(el.options).index(labels[0])
            up = i == 0 or (up and i < len(el.options) - 1)
            labels[0] = el.options[i + (1 if up else -1)] if len(el.options) > 1 else labels[0]
            return f"slider {el.label} {'up' if up else 'down'}"
        values = w.state.double_array_value.data
        up = values[0] <= el.min or (up and values[0] < el.max)
        values[0] = round(min(el.max, max(el.min, values[0] + (el.step if up else -el.step))), 10)
        return f"slider {el.label} {'up' if up else 'down'}"
