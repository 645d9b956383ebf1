#!/usr/bin/env bash
# Compile the Java client and its JUnit 5 tests with javac, run them with the JUnit console
# launcher, and print a last line "N passed, M failed" (exit status non-zero on any failure).
#
# Usage: java-interop/run-tests.sh [-Dappclient.test.NAME=VALUE ...]
#   Integration settings come from those system properties or from the environment:
#   APPCLIENT_TEST_BASE_URL, APPCLIENT_TEST_TOKEN, APPCLIENT_TEST_APP_ID,
#   APPCLIENT_TEST_TOOLS_DIR, APPCLIENT_TEST_FAILING_BASE_URL, APPCLIENT_TEST_CUT_STREAM_BASE_URL,
#   APPCLIENT_TEST_HANGING_BASE_URL, APPCLIENT_TEST_FIXTURES_DIR.
#   Tests needing a server are skipped when no base URL is given.
#
# Everything comes from Debian packages: default-jdk-headless, libgoogle-gson-java, junit5.
# GSON_JAR and JUNIT_CONSOLE_JAR override where the jars are looked for; JAVA_INTEROP_BUILD_DIR
# where classes and reports go (default java-interop/build); JAVA_INTEROP_REUSE_BUILD=1 skips
# compiling when that folder already holds the classes.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
gson_jar="${GSON_JAR:-/usr/share/java/gson.jar}"
console_jar="${JUNIT_CONSOLE_JAR:-/usr/share/java/junit-platform-console-standalone.jar}"
build="${JAVA_INTEROP_BUILD_DIR:-$here/build}"

missing=()
command -v javac >/dev/null || missing+=("javac (apt-get install default-jdk-headless)")
command -v java >/dev/null || missing+=("java (apt-get install default-jdk-headless)")
[[ -f "$gson_jar" ]] || missing+=("$gson_jar (apt-get install libgoogle-gson-java)")
[[ -f "$console_jar" ]] || missing+=("$console_jar (apt-get install junit5)")
if ((${#missing[@]})); then
    printf 'run-tests.sh: missing %s\n' "${missing[@]}" >&2
    exit 3
fi

jvm_args=()
for arg in "$@"; do
    case "$arg" in
        -D*) jvm_args+=("$arg") ;;
        *) echo "run-tests.sh: unknown argument '$arg' (only -Dname=value)" >&2; exit 2 ;;
    esac
done

if [[ "${JAVA_INTEROP_REUSE_BUILD:-}" == 1 && -d "$build/test-classes/dev" ]]; then
    echo "run-tests.sh: reusing the classes in $build (JAVA_INTEROP_REUSE_BUILD=1)"
else
    rm -rf "$build/classes" "$build/test-classes"
    mkdir -p "$build/classes" "$build/test-classes"
    find "$here/src/main/java" -name '*.java' >"$build/main-sources.txt"
    find "$here/src/test/java" -name '*.java' >"$build/test-sources.txt"
    javac --release 17 -encoding UTF-8 -Xlint:all -Xdoclint:all/protected -Werror \
        -cp "$gson_jar" -d "$build/classes" @"$build/main-sources.txt"
    javac --release 17 -encoding UTF-8 -Xlint:all,-processing \
        -cp "$build/classes:$gson_jar:$console_jar" -d "$build/test-classes" @"$build/test-sources.txt"
fi
mkdir -p "$build/reports"

set +e
java "${jvm_args[@]}" -Dfile.encoding=UTF-8 -jar "$console_jar" \
    --disable-banner --disable-ansi-colors --details=tree \
    --class-path "$build/classes:$build/test-classes:$gson_jar" \
    --select-package dev.appclient \
    --reports-dir "$build/reports" \
    2>&1 | tee "$build/console.txt"
status=${PIPESTATUS[0]}
set -e

# The launcher's summary lines look like "[        47 tests successful      ]".
count() { sed -n "s/^\[ *\([0-9][0-9]*\) $1 *\]$/\1/p" "$build/console.txt" | tail -n 1; }
passed=$(count 'tests successful'); passed=${passed:-0}
failed=$(count 'tests failed'); failed=${failed:-0}
broken=$(count 'containers failed'); broken=${broken:-0}
aborted=$(count 'tests aborted'); aborted=${aborted:-0}
skipped=$(count 'tests skipped'); skipped=${skipped:-0}
failed=$((failed + broken))
if ((status != 0 && failed == 0)); then
    failed=1 # the launcher failed without a summary (bad arguments, crash): never report success
fi
echo "skipped: $((aborted + skipped)) (tests whose server settings were not given)"
echo "$passed passed, $failed failed"
((failed == 0))
