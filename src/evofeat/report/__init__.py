"""Tables (paper beside ours, mean ± std) and figures (matplotlib) for reports."""

from evofeat.report.figures import save_figure
from evofeat.report.published import published
from evofeat.report.tables import diff_in_std, markdown_table, mean_std

__all__ = ["diff_in_std", "markdown_table", "mean_std", "published", "save_figure"]
