"""``verify-evidence manifest``: compute, and with ``--write`` write, a manifest."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from verifier.commands import EXIT_OK, ManifestOpt, RootArg, ScopeOpt, optional_path, optional_tuple


def manifest(
    root: RootArg = Path("."),
    write: Annotated[
        bool,
        typer.Option(
            "--write", help="Write ROOT/manifest.sha256 (or --manifest) instead of printing it."
        ),
    ] = False,
    manifest: ManifestOpt = None,
    scope: ScopeOpt = None,
) -> int:
    """Compute a manifest (sorted, LF, names escaped as sha256sum writes them).

    Covers every regular file in the scope: the --scope folders, else the folders the existing
    manifest covers, else evidence/ and schemas/. Never lists itself or anything under .git/.

    Example: verify-evidence manifest . --write
    """
    from verifier.authoring.manifest_file import write_manifest

    target, text = write_manifest(root, optional_path(manifest), optional_tuple(scope), write)
    if write:
        print(f"wrote {target}", file=sys.stderr)
    else:
        sys.stdout.buffer.write(text)
    return EXIT_OK


def register(app: typer.Typer) -> None:
    app.command("manifest")(manifest)
