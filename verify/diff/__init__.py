from .compare import (Budget, CountResult, DiffResult, Difference, Parting, diff, first_state_change, hidden_fields,
                      semantic_signature, subset_representatives)

__all__ = ["Budget", "CountResult", "DiffResult", "Difference", "Parting", "diff", "first_state_change",
           "hidden_fields", "semantic_signature", "subset_representatives"]
