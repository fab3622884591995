"""Links a teacher hands to a class: built from the address the students use, with a QR code.

The browser of the machine that runs the lab usually reaches it as ``http://127.0.0.1:8501`` or
``http://localhost:8501``, an address that means "this device" on every student's phone. Share and
handout links are therefore built from, in order:

1. ``$CTLAB_BASE_URL`` (e.g. ``http://lab.school.example`` behind a proxy, or the address of
   ``make class``): the configured address, used as it is;
2. Streamlit's ``browser.serverAddress`` (with ``browser.serverPort``), when set in
   ``.streamlit/config.toml`` or on the command line (``--browser.serverAddress 192.168.1.20``);
3. the address the browser used, when it is not a loopback one (the teacher opened the lab by its
   network name or through the proxy, so the students can too);
4. this machine's LAN address with the port the browser used (:func:`lan_address`).

When none of these reaches beyond the machine, the loopback address is kept and the page says so.
A link is also named unreachable when the server itself listens on a loopback address only
(``--server.address 127.0.0.1``, or ``$CTLAB_LISTEN``, the address of the proxy in front of it,
which ``make class`` sets): a LAN address in a link is then refused by this machine.
"""

from __future__ import annotations

import io
import ipaddress
import socket
from urllib.parse import urlsplit

import streamlit as st

from labcore.config import PAGE_URLS
from labcore.settings import settings

LISTEN_ENV = "CTLAB_LISTEN"
"""Environment variable naming the address the students' requests arrive on, where it is not this
server's own ``server.address`` (a proxy in front of it: ``make class`` sets nginx's)."""
BASE_URL_ENV = "CTLAB_BASE_URL"
"""Environment variable naming the address students open (scheme, host, port and any path)."""
PAGE_PATHS = (PAGE_URLS["lesson"], PAGE_URLS["mystery"])
"""Pages whose address is cut off the browser's URL to find the lab's base path."""


def is_loopback(host: str) -> bool:
    """Does ``host`` mean "this device" (``localhost``, 127.x.x.x, ``::1``)?

    >>> (is_loopback("localhost"), is_loopback("127.0.0.1"), is_loopback("192.168.1.20"),
    ...  is_loopback("lab.school"))
    (True, True, False, False)
    """
    if host.lower() in ("localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def lan_address() -> str | None:
    """This machine's address on its local network (the interface of its default route), or None.

    A UDP socket "connected" to a private address sends nothing; the kernel only picks the
    interface it would use.
    """
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            host = s.getsockname()[0]
    except OSError:
        return None
    return None if is_loopback(host) or host == "0.0.0.0" else host


def base_url(
    browser_url: str,
    *,
    configured: str | None = None,
    server_address: str | None = None,
    server_port: int | None = None,
    lan: str | None = None,
    listen: str | None = None,
) -> tuple[str, bool | None]:
    """The lab's address for links handed to students, and whether other devices can reach it.

    Parameters
    ----------
    browser_url : str
        The page's URL as the teacher's browser sees it (``st.context.url``; may be empty).
    configured : str, optional
        ``$CTLAB_BASE_URL``: used as it is (a trailing ``/`` removed).
    server_address, server_port : optional
        Streamlit's ``browser.serverAddress`` and ``browser.serverPort``, when set by the user.
    lan : str, optional
        This machine's LAN address (:func:`lan_address`).
    listen : str, optional
        The address the lab listens on (``server.address``, or a proxy's): a loopback one makes
        every link that names another host unreachable.

    Returns
    -------
    (address, reachable)
        The address without a trailing ``/`` and False when it is a loopback address only this
        machine can open; ``("", None)`` when nothing is known (links stay relative).

    Examples
    --------
    >>> base_url("http://127.0.0.1:8501/lesson?step=2", lan="192.168.1.20")
    ('http://192.168.1.20:8501', True)
    >>> base_url("http://127.0.0.1:8501/mystery", configured="http://lab.school/ctlab/",
    ...          lan="192.168.1.20")
    ('http://lab.school/ctlab', True)
    >>> base_url("http://10.0.0.7:8080/lab/mystery", lan="192.168.1.20")
    ('http://10.0.0.7:8080/lab', True)
    >>> base_url("http://localhost:8501/lesson", server_address="lab.local", server_port=80)
    ('http://lab.local:80', True)
    >>> base_url("http://localhost:8501/lesson")
    ('http://localhost:8501', False)
    >>> base_url("http://127.0.0.1:8501/lesson", lan="192.168.1.20", listen="127.0.0.1")
    ('http://192.168.1.20:8501', False)
    """
    address, reachable = _base_url(
        browser_url,
        configured=configured,
        server_address=server_address,
        server_port=server_port,
        lan=lan,
    )
    if reachable and not configured and listen and is_loopback(listen):
        reachable = False  # a link to this machine's LAN address, which it does not listen on
    return address, reachable


def _base_url(
    browser_url: str,
    *,
    configured: str | None,
    server_address: str | None,
    server_port: int | None,
    lan: str | None,
) -> tuple[str, bool | None]:
    if configured:
        return configured.rstrip("/"), True
    url = urlsplit(browser_url or "")
    path = url.path.rstrip("/")
    last = path.rsplit("/", 1)[-1]
    if last in PAGE_PATHS:
        path = path[
            : -len(last) - 1
        ]  # keeps a server base path (server.baseUrlPath, a proxy's prefix)
    if server_address:
        host = server_address if "://" in server_address else f"http://{server_address}"
        port = f":{server_port}" if server_port and not urlsplit(host).port else ""
        return f"{host.rstrip('/')}{port}{path}", True
    if not (url.scheme and url.netloc):
        return "", None
    host = url.hostname or ""
    if not is_loopback(host):
        return f"{url.scheme}://{url.netloc}{path}", True
    if lan:
        port = f":{url.port}" if url.port else ""
        return f"{url.scheme}://{lan}{port}{path}", True
    return f"{url.scheme}://{url.netloc}{path}", False


def lab_base_url() -> tuple[str, bool | None]:
    """:func:`base_url` for this session: the environment, Streamlit's options and the browser's
    URL."""
    from streamlit import config

    address = port = None
    if config.is_manually_set("browser.serverAddress"):
        address = config.get_option("browser.serverAddress")
        port = (
            config.get_option("browser.serverPort")
            if config.is_manually_set("browser.serverPort")
            else None
        )
    return base_url(
        st.context.url or "",
        configured=settings().base_url,
        server_address=address,
        server_port=port,
        lan=lan_address(),
        listen=listening_on(),
    )


def listening_on() -> str | None:
    """The address students' requests must reach: ``$CTLAB_LISTEN`` (a proxy in front of this
    server), else this server's ``server.address`` when set, else None (every interface)."""
    from streamlit import config

    if listen := settings().listen:
        return listen
    if config.is_manually_set("server.address"):
        return config.get_option("server.address") or None
    return None


def qr_png(link: str, scale: int = 8) -> bytes:
    """A QR code of ``link`` as PNG bytes (``segno``; error correction at least M, a 2-module
    border)."""
    import segno  # only the teacher's panels need it

    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="png", scale=scale, border=2)
    return out.getvalue()


def unreachable_note() -> str:
    """What the teacher is told when the links point at this machine only."""
    listen = listening_on()
    if listen and is_loopback(listen):
        return (
            f"This lab listens on {listen} only, so no other device can open these links. Stop "
            "it and start it with `make class` (or `streamlit run app.py --server.address "
            '0.0.0.0`); see README, "Teaching a class".'
        )
    return (
        "These links point at this machine only (no network address was found). Set "
        f"`{BASE_URL_ENV}` to the "
        "address students open (e.g. `http://192.168.1.20:8501`), or start the lab with "
        '`--browser.serverAddress <this machine\'s address>`; see README, "Teaching a class".'
    )


def share_panel(link: str, *, reachable: bool | None, caption: str) -> None:
    """The link in a copyable box beside its QR code, for a projector."""
    text, code = st.columns([3, 1])
    text.code(link, language=None, wrap_lines=True)  # wrapped: a cut link sends phones astray
    text.caption(caption)
    if reachable is False:
        text.warning(unreachable_note(), icon=":material/wifi_off:")
    code.image(qr_png(link), caption="Scan to open", width=180, alt=f"QR code of {link}")
