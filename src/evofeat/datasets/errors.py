"""The errors raised by :mod:`evofeat.datasets`."""

from __future__ import annotations

__all__ = [
    "ChecksumError",
    "DataFormatError",
    "DataNotFoundError",
    "UnknownDatasetError",
    "UnverifiedDownloadWarning",
]


class DataNotFoundError(FileNotFoundError):
    """A data set's file is not on this machine.

    The message names the data set, every place that was searched, and how to
    get the file (``evofeat datasets download NAME``, or ``EVOFEAT_DATA``).

    Examples
    --------
    >>> from evofeat.datasets import DataNotFoundError, load
    >>> try:
    ...     load("no/such/file.csv")
    ... except DataNotFoundError as err:
    ...     print("not found")
    not found
    """


class DataFormatError(ValueError):
    """A data file cannot be read as the format it claims to be.

    The message names the file and, where there is one, the line, says what
    was expected and how to fix it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from evofeat.datasets import DataFormatError, load
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "empty.csv"
    >>> _ = path.write_text("")
    >>> try:
    ...     load(path)
    ... except DataFormatError as err:
    ...     print("is empty" in str(err))
    True
    """


class UnknownDatasetError(KeyError):
    """A name that is neither a registered data set nor an existing file.

    Subclasses :class:`KeyError`; the message lists the closest registered
    names first, then all of them.

    Examples
    --------
    >>> from evofeat.datasets import load
    >>> from evofeat.datasets.errors import UnknownDatasetError
    >>> try:
    ...     load("germn")
    ... except UnknownDatasetError as err:
    ...     print(str(err).splitlines()[0])
    unknown data set 'germn'; did you mean: german, german-stsd?
    """

    def __str__(self) -> str:
        # KeyError.__str__ would wrap the message in quotes.
        return str(self.args[0]) if self.args else ""


class ChecksumError(ValueError):
    """Downloaded bytes whose sha256 is not the one the registry records.

    Examples
    --------
    >>> from evofeat.datasets.errors import ChecksumError
    >>> issubclass(ChecksumError, ValueError)
    True
    """


class UnverifiedDownloadWarning(UserWarning):
    """A download stored without a checksum check: its source publishes no sha256.

    The message names the file, its URL and the sha256 evofeat computed, so a
    user can compare it with a colleague's copy; ``evofeat datasets download``
    prints it.

    Examples
    --------
    >>> from evofeat.datasets.errors import UnverifiedDownloadWarning
    >>> issubclass(UnverifiedDownloadWarning, UserWarning)
    True
    """
