"""Conversions of perfdata.ArrowTable to the dataframe libraries (each imported only when used)."""

from __future__ import annotations

from typing import Any


def to_pyarrow(table: Any) -> Any:
    """The table as a ``pyarrow.Table`` (zero-copy, through the Arrow PyCapsule interface)."""
    import pyarrow as pa

    return pa.table(table)


def _pandas_types() -> dict:
    import pandas as pd
    import pyarrow as pa

    # Nullable extension types keep 64-bit integers exact where a column has missing values (numpy
    # would turn such a column into float64 and round addresses above 2**53).
    return {
        pa.uint8(): pd.UInt8Dtype(),
        pa.uint16(): pd.UInt16Dtype(),
        pa.uint32(): pd.UInt32Dtype(),
        pa.uint64(): pd.UInt64Dtype(),
        pa.int8(): pd.Int8Dtype(),
        pa.int16(): pd.Int16Dtype(),
        pa.int32(): pd.Int32Dtype(),
        pa.int64(): pd.Int64Dtype(),
        pa.bool_(): pd.BooleanDtype(),
    }


def _is_nested_or_text(ty: Any) -> bool:
    import pyarrow as pa

    t = pa.types
    return bool(
        t.is_list(ty)
        or t.is_large_list(ty)
        or t.is_fixed_size_list(ty)
        or t.is_struct(ty)
        or t.is_string(ty)
        or t.is_large_string(ty)
        or t.is_binary(ty)
        or t.is_large_binary(ty)
    )


def to_pandas(table: Any, dtypes: str = "arrow") -> Any:
    """The table as a ``pandas.DataFrame``: nullable integer columns (64-bit addresses stay exact),
    categorical dictionary columns, and with ``dtypes="arrow"`` (the default) list, string and
    binary columns backed by their Arrow arrays (``pd.ArrowDtype``: no Python object per element, so
    a million callchains convert in milliseconds); ``dtypes="object"`` gives those columns as Python
    objects (lists as numpy arrays), as pyarrow's own ``to_pandas()`` does."""
    import pandas as pd

    if dtypes not in ("arrow", "object"):
        raise ValueError(f"dtypes must be 'arrow' or 'object', not {dtypes!r}")
    nullable = _pandas_types()

    def mapper(ty: Any) -> Any:
        found = nullable.get(ty)
        if found is None and dtypes == "arrow" and _is_nested_or_text(ty):
            return pd.ArrowDtype(ty)
        return found

    return to_pyarrow(table).to_pandas(types_mapper=mapper)


def to_polars(table: Any) -> Any:
    """The table as a ``polars.DataFrame``."""
    import polars as pl

    return pl.DataFrame(table)


class _Progress:
    """``progress=True`` without tqdm: one line on stderr, rewritten as the file is read."""

    def __init__(self, total: Any = None, desc: str = "") -> None:
        self.total, self.desc, self.n = total, desc, 0

    def update(self, n: int) -> None:
        import sys

        self.n += n
        if self.total:
            done = f"{100 * self.n // self.total:3d}% of {self.total / 1e6:.1f} MB"
        else:
            done = f"{self.n} records"
        sys.stderr.write(f"\r{self.desc}: {done}")
        sys.stderr.flush()

    def close(self) -> None:
        import sys

        sys.stderr.write("\n")
        sys.stderr.flush()
