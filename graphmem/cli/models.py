"""`graphmem models ...`: embedding models other than the packaged MiniLM, installed once as a
step of their own and then named by GRAPHMEM_EMBEDDING_MODEL."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from graphmem.cli.support import friendly_errors, settings_of


@click.group("models")
def models_group() -> None:
    """Embedding models: the ones graphmem can assemble, install and use."""


@models_group.command("list")
@click.pass_context
def list_models(ctx: click.Context) -> None:
    """The packaged model, the models graphmem can assemble, and those installed here."""
    from graphmem.providers.catalog import RECIPES, installed

    home = settings_of(ctx).home
    done = {str(m["name"]): m for m in installed(home)}
    click.echo(f"{'all-MiniLM-L6-v2':<22} packaged (the default): 22 M parameters, 384-d, "
               "English")
    for recipe in RECIPES.values():
        state = "installed" if recipe.name in done else "not installed"
        click.echo(f"{recipe.name:<22} {state}; {recipe.licence}: {recipe.summary}")
    for name, manifest in done.items():
        if name not in RECIPES:
            click.echo(f"{name:<22} installed: {manifest.get('summary', '')}")


@models_group.command("install")
@click.argument("name")
@click.option("--from", "source", type=click.Path(exists=True, path_type=Path), default=None,
              help="A model folder (or its zip) downloaded from the publisher, instead of "
              "assembling it from registry packages; any sentence-transformers model so.")
@click.option("--force", is_flag=True, help="Install again over an installed copy.")
@click.option("--accept-terms", is_flag=True,
              help="Accept the model's own licence terms (EmbeddingGemma's Gemma Terms of Use), "
              "which it is installed under; printed when they are not accepted.")
@click.pass_context
@friendly_errors
def install_model(ctx: click.Context, name: str, source: Path | None, force: bool,
                  accept_terms: bool) -> None:
    """Get the model NAME into GRAPHMEM_HOME/models/NAME: assemble it from the packages its
    recipe names (or copy --from), check its weight file's sha256, export and check the ONNX
    graph the runtime runs (this step needs PyTorch: graphmem[train]). Minutes, once; nothing
    is fetched at search time. Then: GRAPHMEM_EMBEDDING_MODEL=NAME, and `graphmem reembed
    --all` moves existing spaces to it."""
    from graphmem.providers.catalog import RECIPES
    from graphmem.providers.install import install

    recipe = RECIPES.get(name)
    if recipe is not None and recipe.licence != "Apache-2.0" and not accept_terms:
        raise click.UsageError(f"{recipe.terms}\nRead them, then run again with "
                               "--accept-terms to install it.")
    manifest = install(name, settings_of(ctx).home, source, force,
                       progress=lambda line: click.echo(line, err=True))
    dims = manifest.get("dimensions")
    cut = ", ".join(str(d) for d in manifest.get("matryoshka", []))
    click.echo(f"{name}: {dims}-d" + (f" (or cut to {cut} with "
                                      "GRAPHMEM_EMBEDDING_DIMENSIONS)" if cut else ""))


@models_group.command("remove")
@click.argument("name")
@click.pass_context
@friendly_errors
def remove_model(ctx: click.Context, name: str) -> None:
    """Delete the installed model NAME (spaces embedded with it need it, or a reembed)."""
    from graphmem.providers.catalog import installed_path

    folder = installed_path(name, settings_of(ctx).home)
    if folder is None:
        raise click.ClickException(f"no model named {name!r} is installed")
    shutil.rmtree(folder)
    click.echo(f"removed {folder}")
