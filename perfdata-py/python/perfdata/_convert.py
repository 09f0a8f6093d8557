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


def to_pandas(table: Any) -> Any:
    """The table as a ``pandas.DataFrame`` with nullable integer columns and categorical ``event``."""
    import pyarrow as pa  # noqa: F401  (pandas needs it for this conversion)

    return to_pyarrow(table).to_pandas(types_mapper=_pandas_types().get)


def to_polars(table: Any) -> Any:
    """The table as a ``polars.DataFrame``."""
    import polars as pl

    return pl.DataFrame(table)
