#!/usr/bin/env bash
# Refresh the translation sources from the code, then compile them:
#   bash resources/i18n/update.sh
# lupdate keeps existing translations and marks new or changed strings "unfinished"; translate those
# in Qt Linguist (pyside6-linguist resources/i18n/cosy_studio_zh_CN.ts), then run this again.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=.venv/bin
sources=(app/*.py app/widgets/*.py)
"$bin/pyside6-lupdate" "${sources[@]}" -ts resources/i18n/cosy_studio_zh_CN.ts resources/i18n/cosy_studio_en.ts
"$bin/pyside6-lrelease" resources/i18n/cosy_studio_zh_CN.ts resources/i18n/cosy_studio_en.ts
