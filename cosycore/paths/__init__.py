"""Where Cosy Studio keeps the user's files (:mod:`.folders`) and the one-time move of the command
line's old folder into the shared one (:mod:`.legacy`).

A foundation below the voice library, the dictionary and the model hub, so that all of them, the
app and the command line resolve the same folders.
"""

from .folders import (
    APP_AUTHOR,
    APP_NAME,
    HOME_ENV,
    LEGACY_DIR_NAME,
    MODELS_ENV,
    default_models_dir,
    legacy_data_dir,
    platform_data_dir,
    studio_home,
    user_cache_dir,
    user_data_dir,
    user_log_dir,
)
from .legacy import LeftBehind, MoveReport, ensure_legacy_moved, move_legacy_data

__all__ = [
    "APP_AUTHOR",
    "APP_NAME",
    "HOME_ENV",
    "LEGACY_DIR_NAME",
    "MODELS_ENV",
    "LeftBehind",
    "MoveReport",
    "default_models_dir",
    "ensure_legacy_moved",
    "legacy_data_dir",
    "move_legacy_data",
    "platform_data_dir",
    "studio_home",
    "user_cache_dir",
    "user_data_dir",
    "user_log_dir",
]
