#!/usr/bin/env bash
# Refresh the translation sources from the code, then compile them:
#   bash resources/i18n/update.sh
# lupdate keeps existing translations and marks new or changed strings "unfinished"; translate those
# in Qt Linguist (pyside6-linguist resources/i18n/cosy_studio_zh_CN.ts), then run this again.
# The .ts files carry no source locations, so that edits to unrelated lines never touch them.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${COSY_VENV:-.venv}/bin"  # COSY_VENV: another environment (a git worktree shares one)
mapfile -t sources < <(find app -name '*.py' | sort)
"$bin/pyside6-lupdate" -locations none -no-obsolete "${sources[@]}" \
  -ts resources/i18n/cosy_studio_zh_CN.ts resources/i18n/cosy_studio_en.ts
"$bin/pyside6-lrelease" resources/i18n/cosy_studio_zh_CN.ts resources/i18n/cosy_studio_en.ts
