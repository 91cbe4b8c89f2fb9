"""Load a package's public names on first use (PEP 562), so that importing it pays for none of its modules."""

from __future__ import annotations

import importlib


def lazy_exports(package: str, exports: dict[str, tuple[str, ...]], submodules: tuple[str, ...] = ()):
    """``(__all__, __getattr__, __dir__)`` for ``package``: each name of ``exports[module]`` is loaded from
    ``package.module`` on first access, each of ``submodules`` (and each key of ``exports``) is the module itself."""
    where = {name: module for module, names in exports.items() for name in names}
    modules = {*exports, *submodules}
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str):
        if name in where:
            value = getattr(importlib.import_module(f"{package}.{where[name]}"), name)
        elif name in modules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *where, *modules})

    return [*where, *submodules], __getattr__, __dir__
