"""API keys of the server: ``officeqa keys create|list|revoke``.

    officeqa keys create --kb NAME [--kb NAME2] --role read|write [--label TEXT] [--json]
    officeqa keys list [--json]
    officeqa keys revoke KEY_ID

``create`` prints the key once (only its hash is stored); a running server picks changes up on
its next request.
"""

from __future__ import annotations

import argparse

from officeqa.settings import Settings
from server.cli.output import print_json_line


def register(subparsers: argparse._SubParsersAction) -> None:
    keys = subparsers.add_parser("keys", help="Create, list and revoke API keys of the server.")
    actions = keys.add_subparsers(dest="keys_command", required=True)

    p = actions.add_parser("create", help="Create a key scoped to knowledge bases; prints it once.")
    p.add_argument("--kb", action="append", required=True, metavar="NAME", help="Knowledge base (repeatable).")
    p.add_argument("--role", required=True, choices=["read", "write"], help="read: ask and read; write: also "
                                                                             "upload and delete.")
    p.add_argument("--label", default="", help="A note for whom the key is (shown by list).")
    p.add_argument("--json", action="store_true", help="One JSON object.")
    p.set_defaults(handler=run_create)

    p = actions.add_parser("list", help="List keys (never their secrets).")
    p.add_argument("--json", action="store_true", help="One JSON object.")
    p.set_defaults(handler=run_list)

    p = actions.add_parser("revoke", help="Revoke a key by its id.")
    p.add_argument("key_id", help="The key id (the part after 'oqa_', as list shows it).")
    p.set_defaults(handler=run_revoke)


def _store(settings: Settings):
    from server.keys import KeyStore, keys_path

    return KeyStore(keys_path(settings))


def run_create(args: argparse.Namespace, settings: Settings) -> int:
    store = _store(settings)
    key, token = store.create(args.kb, args.role, args.label)
    if args.json:
        print_json_line({**key.public(), "key": token, "file": str(store.path)})
        return 0
    print(token)
    print(f"key {key.id}: role {key.role} on {', '.join(key.kbs)} (stored hashed in {store.path}; "
          "this is the only time the key is shown)")
    return 0


def run_list(args: argparse.Namespace, settings: Settings) -> int:
    store = _store(settings)
    keys = store.keys()
    if args.json:
        print_json_line({"file": str(store.path), "keys": [k.public() for k in keys]})
        return 0
    if not keys:
        print(f"no API keys in {store.path}: `officeqa serve` runs in local mode (localhost only)")
    for key in keys:
        state = f"revoked {key.revoked_at}" if key.revoked_at else "active"
        label = f"  {key.label}" if key.label else ""
        print(f"{key.id}  {key.role:5}  {','.join(key.kbs)}  created {key.created_at}  {state}{label}")
    return 0


def run_revoke(args: argparse.Namespace, settings: Settings) -> int:
    key = _store(settings).revoke(args.key_id)
    print(f"revoked key {key.id} ({key.role} on {', '.join(key.kbs)})")
    return 0
