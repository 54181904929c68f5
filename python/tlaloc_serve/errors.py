"""The errors of tlaloc_serve: one base class, so a caller can catch them all."""


class TlalocServeError(Exception):
    """Anything tlaloc_serve refuses or that fails under it."""


class ArtifactError(TlalocServeError):
    """The artifact on disk is missing, damaged or inconsistent (names the file)."""


class InputError(TlalocServeError, ValueError):
    """A run was asked for something the manifest does not allow (entry, dtype, shape, size)."""


class PluginError(TlalocServeError):
    """The PJRT plugin could not be loaded, or one of its calls failed.

    `code` is the plugin's error code (absl::StatusCode numbering, see CODE_NAMES) when
    the plugin returned an error, None when the plugin could not be loaded at all.
    """

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code

    @property
    def code_name(self):
        return code_name(self.code) if self.code is not None else None


CODE_NAMES = ("OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
              "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
              "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
              "UNAUTHENTICATED")


def code_name(code):
    """"INVALID_ARGUMENT" for 3; "code N" for a code PJRT does not define."""
    return CODE_NAMES[code] if 0 <= code < len(CODE_NAMES) else f"code {code}"
