#!/bin/sh
# Stands in for compute-sanitizer in tests without a GPU: records its arguments, runs the
# target like the real tool, then writes a canned report to --log-file.
#   KERNELPAD_FAKE_SANITIZER_REPORT  the report to copy (none: an empty, clean log)
#   KERNELPAD_FAKE_SANITIZER_ARGS    a file to write the arguments to, one per line
log=""
if [ -n "$KERNELPAD_FAKE_SANITIZER_ARGS" ]; then
    printf '%s\n' "$@" > "$KERNELPAD_FAKE_SANITIZER_ARGS"
fi
while [ $# -gt 0 ]; do
    case "$1" in
        --log-file) log="$2"; shift 2 ;;
        --*) shift 2 ;;
        *) break ;;
    esac
done
"$@"
status=$?
if [ -n "$KERNELPAD_FAKE_SANITIZER_REPORT" ]; then
    cat "$KERNELPAD_FAKE_SANITIZER_REPORT" > "$log"
else
    printf '========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n' > "$log"
fi
exit $status
