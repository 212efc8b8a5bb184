#!/usr/bin/python3
"""Loads a page in a WebKitGTK webview through a proxy and prints what the page reported.

Usage: webkit-report.py [--trust CA_PEM] [--report EXPRESSION] [--data-dir DIR] PROXY URL TIMEOUT_SECONDS

Run under `xvfb-run -a` with Debian's python3 (python3-gi, gir1.2-webkit2-4.1). The WebKit
equivalent of Tests/Fixtures/chromium-report.py: the page reports by setting `window.__report` to
an object (or EXPRESSION, JavaScript, gives one); the report is complete when it has `done: true`.
Prints one JSON object: the report (or the last partial one, with "timedOut": true, or with
"tlsRefused": HOST when the page's certificate was refused), plus "consoleErrors" (exceptions the
page threw, gathered by a script injected before the page's own, as WebKit2 4.1 has no console
signal). Exit status 0 unless WebKit could not be driven.

The webview's website data is ephemeral (nothing on disk, nothing kept between runs) unless
--data-dir names a folder to keep it in (cookies included, as a user's browser keeps them between
visits), and every
request, loopback included, goes through PROXY. With --trust, a certificate the webview rejects
is checked here against that CA only (chain and host name, by GIO), and only if it passes is it
allowed for that one host (`WebContext.allow_tls_certificate_for_host`) and the page loaded again:
TLS checks stay on for everything else. (glib-networking on Debian 12 reads the system store from
a fixed file, /etc/ssl/certs/ca-certificates.crt, with no per-process override.)
"""
import argparse
import json
import os
import sys
import time

import gi

# GTK on the X display xvfb-run gives, whatever a desktop session around the tests says.
os.environ["GDK_BACKEND"] = "x11"
gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
from gi.repository import Gio, GLib, Gtk, WebKit2  # noqa: E402

# Records what the page throws, as Chromium's Runtime.exceptionThrown does for chromium-report.py.
CATCH_ERRORS = """
window.__consoleErrors = [];
window.addEventListener("error", (event) => {
  window.__consoleErrors.push(event.error ? String(event.error.stack || event.error) : String(event.message));
});
window.addEventListener("unhandledrejection", (event) => {
  window.__consoleErrors.push("Uncaught (in promise) " + String(event.reason && (event.reason.stack || event.reason)));
});
"""

# How often the page may be loaded again after a certificate is allowed (once per new host).
MAX_TLS_RELOADS = 8


class Driver:
    def __init__(self, proxy, url, timeout, trusted_ca, expression, data_dir=None):
        self.url = url
        self.expression = expression
        self.deadline = time.monotonic() + timeout
        self.trusted_ca = Gio.TlsCertificate.new_from_file(trusted_ca) if trusted_ca else None
        self.allowed_hosts = set()
        self.reloads = 0
        self.tls_refused = None
        self.report = None
        self.timed_out = False
        self.body_text = None
        self.console_errors = []
        self.evaluating = False

        if data_dir:
            manager = WebKit2.WebsiteDataManager(
                base_data_directory=os.path.join(data_dir, "data"), base_cache_directory=os.path.join(data_dir, "cache"))
        else:
            manager = WebKit2.WebsiteDataManager.new_ephemeral()
        # No ignore-hosts: 127.0.0.1 and localhost go through the proxy too.
        settings = WebKit2.NetworkProxySettings.new(proxy, None)
        settings.add_proxy_for_scheme("http", proxy)
        settings.add_proxy_for_scheme("https", proxy)
        settings.add_proxy_for_scheme("ws", proxy)
        settings.add_proxy_for_scheme("wss", proxy)
        manager.set_network_proxy_settings(WebKit2.NetworkProxyMode.CUSTOM, settings)
        self.context = WebKit2.WebContext.new_with_website_data_manager(manager)
        self.context.set_cache_model(WebKit2.CacheModel.DOCUMENT_VIEWER)
        if data_dir:
            self.context.get_cookie_manager().set_persistent_storage(
                os.path.join(data_dir, "cookies.sqlite"), WebKit2.CookiePersistentStorage.SQLITE)
        content = WebKit2.UserContentManager()
        content.add_script(
            WebKit2.UserScript.new(
                CATCH_ERRORS, WebKit2.UserContentInjectedFrames.ALL_FRAMES,
                WebKit2.UserScriptInjectionTime.START, None, None))
        self.view = WebKit2.WebView(web_context=self.context, user_content_manager=content)
        self.view.connect("load-failed-with-tls-errors", self.on_page_tls_error)
        self.view.connect("resource-load-started", self.on_resource)
        self.window = Gtk.OffscreenWindow()
        self.window.set_default_size(1024, 768)
        self.window.add(self.view)
        self.window.show_all()

    def run(self):
        self.view.load_uri(self.url)
        GLib.timeout_add(100, self.poll)
        Gtk.main()
        report = dict(self.report or {})
        if self.timed_out:
            report["timedOut"] = True
            report["bodyText"] = self.body_text
        if self.tls_refused:
            report["tlsRefused"] = self.tls_refused
        report["consoleErrors"] = self.console_errors
        return report

    # TLS: a certificate that chains to the trusted CA and names the host is allowed for that host.

    def allow(self, certificate, host):
        """Whether `certificate` is (now) allowed for `host`, after checking it against the CA."""
        if host in self.allowed_hosts:
            return True
        if self.trusted_ca is None:
            return False
        problems = certificate.verify(Gio.NetworkAddress.new(host, 443), self.trusted_ca)
        if problems != 0:
            print(f"webkit-report.py: {host}'s certificate is not from the trusted CA: {problems}", file=sys.stderr)
            return False
        self.context.allow_tls_certificate_for_host(certificate, host)
        self.allowed_hosts.add(host)
        return True

    def reload(self):
        """Loads the page again (after a certificate was allowed), a bounded number of times."""
        if self.reloads >= MAX_TLS_RELOADS:
            return False
        self.reloads += 1
        self.view.load_uri(self.url)
        return True

    def on_page_tls_error(self, view, failing_uri, certificate, errors):
        host = GLib.Uri.parse(failing_uri, GLib.UriFlags.NONE).get_host()
        if self.allow(certificate, host) and self.reload():
            return True
        # What a user sees is WebKit's error page; the report says which host was refused, at once.
        self.tls_refused = host
        Gtk.main_quit()
        return False

    def on_resource(self, view, resource, request):
        if resource is not view.get_main_resource():  # the page's own failure is on_page_tls_error's
            resource.connect("failed-with-tls-errors", self.on_resource_tls_error)

    def on_resource_tls_error(self, resource, certificate, errors):
        host = GLib.Uri.parse(resource.get_uri(), GLib.UriFlags.NONE).get_host()
        if self.allow(certificate, host):
            # The resource already failed; the page starts again with its host allowed.
            self.reload()

    # Polling window.__report.

    def poll(self):
        if self.evaluating:
            return True
        if time.monotonic() > self.deadline:
            self.evaluate("document.body ? document.body.innerText : ''", self.finish_timed_out)
            return False
        self.evaluate(
            f"JSON.stringify({{report: ({self.expression}) || null, errors: window.__consoleErrors || []}})", self.on_report)
        return True

    def evaluate(self, script, then):
        self.evaluating = True

        def done(view, result):
            self.evaluating = False
            try:
                value = view.evaluate_javascript_finish(result)
                then(value.to_string() if value is not None and not value.is_undefined() else None)
            except GLib.Error as error:  # e.g. no document yet while the page loads
                then(None, error)

        self.view.evaluate_javascript(script, -1, None, None, None, done)

    def on_report(self, text, error=None):
        if not text:
            return
        value = json.loads(text)
        if value.get("report") is not None:
            self.report = value["report"]
        self.console_errors = value.get("errors") or []
        if self.report and self.report.get("done"):
            Gtk.main_quit()

    def finish_timed_out(self, text, error=None):
        self.timed_out = True
        self.body_text = text
        Gtk.main_quit()


def main():
    parser = argparse.ArgumentParser(description="Loads a page in a WebKitGTK webview and prints its report.")
    parser.add_argument("--trust", metavar="CA_PEM", help="a CA whose certificates the webview accepts")
    parser.add_argument("--report", metavar="EXPRESSION", default="window.__report", help="JavaScript giving the report")
    parser.add_argument("--data-dir", metavar="DIR", help="keep website data (cookies included) in DIR between runs")
    parser.add_argument("proxy")
    parser.add_argument("url")
    parser.add_argument("timeout", type=float)
    arguments = parser.parse_args()
    driver = Driver(arguments.proxy, arguments.url, arguments.timeout, arguments.trust, arguments.report, arguments.data_dir)
    print(json.dumps(driver.run()))


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # a driver failure, not a page result
        print(f"webkit-report.py: {error}", file=sys.stderr)
        sys.exit(2)
