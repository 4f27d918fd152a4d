"""Local mail catcher for `npm start` and `npm test`: an SMTP server (aiosmtpd) that keeps every
message in memory, and a small web inbox with a JSON API beside it.

  python mailcatcher.py --smtp-port 1025 --http-port 8025

  GET    /                     the inbox (newest first), each message linked
  GET    /messages/<id>        one message: headers, the HTML part in a sandboxed frame, the text part
  GET    /api/messages[?to=a]  JSON list, newest first: id, from, to, subject, date, text, html
  DELETE /api/messages         empties the inbox

Nothing leaves this machine: it accepts mail for any address and relays none.
"""

import argparse
import email
import email.policy
import html
import itertools
import json
import threading
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from aiosmtpd.controller import Controller

MAX_MESSAGES = 1000

messages = []
lock = threading.Lock()
ids = itertools.count(1)


def parts_of(msg):
    text = html_part = ""
    for part in msg.walk():
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        kind = part.get_content_type()
        if kind == "text/plain" and not text:
            text = part.get_content()
        elif kind == "text/html" and not html_part:
            html_part = part.get_content()
    return text, html_part


class Keeper:
    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        text, html_part = parts_of(msg)
        entry = {
            "id": str(next(ids)),
            "from": envelope.mail_from,
            "to": [address.lower() for address in envelope.rcpt_tos],
            "subject": str(msg.get("Subject", "")),
            "date": datetime.now(timezone.utc).isoformat(),
            "text": text,
            "html": html_part,
        }
        with lock:
            messages.append(entry)
            del messages[:-MAX_MESSAGES]
        return "250 Message accepted for delivery"


def page(title, body):
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>"
        + html.escape(title)
        + "</title><style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}"
        "td,th{padding:.3rem .8rem;text-align:left;border-bottom:1px solid #ddd}"
        "iframe{width:100%;height:24rem;border:1px solid #ccc}pre{white-space:pre-wrap;background:#f6f6f6;padding:1rem}"
        "</style></head><body>" + body + "</body></html>"
    )


class Inbox(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status, body, kind):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urlparse(self.path)
        with lock:
            snapshot = list(reversed(messages))
        if url.path == "/api/messages":
            to = parse_qs(url.query).get("to", [None])[0]
            if to:
                snapshot = [m for m in snapshot if to.lower() in m["to"]]
            return self.send(200, json.dumps(snapshot), "application/json")
        if url.path == "/":
            rows = "".join(
                f"<tr><td>{html.escape(m['date'][:19])}</td><td>{html.escape(', '.join(m['to']))}</td>"
                f"<td><a href='/messages/{m['id']}'>{html.escape(m['subject'] or '(no subject)')}</a></td></tr>"
                for m in snapshot
            )
            body = f"<h1>Local inbox</h1><p>{len(snapshot)} message(s)</p><table><tr><th>received</th><th>to</th><th>subject</th></tr>{rows}</table>"
            return self.send(200, page("Local inbox", body), "text/html; charset=utf-8")
        if url.path.startswith("/messages/"):
            found = next((m for m in snapshot if m["id"] == url.path.rsplit("/", 1)[-1]), None)
            if not found:
                return self.send(404, page("Not found", "<p>No such message. <a href='/'>Inbox</a></p>"), "text/html")
            frame = (
                f"<iframe sandbox='allow-popups allow-popups-to-escape-sandbox' srcdoc=\"{html.escape(found['html'])}\"></iframe>"
                if found["html"]
                else ""
            )
            body = (
                f"<p><a href='/'>&larr; Inbox</a></p><h1>{html.escape(found['subject'])}</h1>"
                f"<p>From {html.escape(found['from'])} to {html.escape(', '.join(found['to']))}, {html.escape(found['date'])}</p>"
                f"{frame}<h2>Plain text</h2><pre>{html.escape(found['text'])}</pre>"
            )
            return self.send(200, page(found["subject"], body), "text/html; charset=utf-8")
        self.send(404, '{"error":"not found"}', "application/json")

    def do_DELETE(self):
        if urlparse(self.path).path != "/api/messages":
            return self.send(404, '{"error":"not found"}', "application/json")
        with lock:
            messages.clear()
        self.send(200, "{}", "application/json")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--smtp-port", type=int, default=1025)
    parser.add_argument("--http-port", type=int, default=8025)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    smtp = Controller(Keeper(), hostname=args.host, port=args.smtp_port)
    smtp.start()
    http = ThreadingHTTPServer((args.host, args.http_port), Inbox)
    try:
        http.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        http.server_close()
        smtp.stop()


if __name__ == "__main__":
    main()
