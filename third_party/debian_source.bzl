"""A library built by Bazel from the upstream source archive of a Debian source package, pinned by its SHA-256.

Bazel 4 in WORKSPACE mode would download its dependencies; here there is no internet. tools/bootstrap.sh fetches
the source packages with `apt-get source --download-only` into one distfiles folder (default
~/.cache/netbench/distfiles, or $NETBENCH_DISTFILES), and this rule unpacks one archive from there after checking
its hash. The archives are Debian's `.orig.tar.*`: the upstream release unchanged, the same for every Debian
revision of that version, so any machine (macOS, another Linux) gets the same sources by putting the same files
in that folder (README lists them with their hashes).

    debian_source_archive(
        name = "com_google_absl",
        source_package = "abseil",
        archive = "abseil_20220623.1.orig.tar.gz",
        sha256 = "abfe2897...",
        strip_prefix = "abseil-20220623.1",
    )

gives `@com_google_absl//absl/strings` and the rest of the archive's own BUILD files; `build_file` replaces the
top-level BUILD file for an archive that ships none.
"""

def _distfiles(ctx):
    folder = ctx.os.environ.get("NETBENCH_DISTFILES", "")
    if folder:
        return folder
    home = ctx.os.environ.get("HOME", "")
    if not home:
        fail("netbench: neither NETBENCH_DISTFILES nor HOME is set: cannot find the distfiles folder.")
    return home + "/.cache/netbench/distfiles"

def _debian_source_archive_impl(ctx):
    path = ctx.path(_distfiles(ctx) + "/" + ctx.attr.archive)
    if not path.exists:
        fail(("netbench: the source archive %s (SHA-256 %s, from Debian's source package '%s') is not in %s. " +
              "Run tools/bootstrap.sh, or put that file there yourself (README: Dependencies).") %
             (ctx.attr.archive, ctx.attr.sha256, ctx.attr.source_package, path.dirname))
    ctx.download_and_extract(
        url = "file://" + str(path),
        sha256 = ctx.attr.sha256,
        stripPrefix = ctx.attr.strip_prefix,
    )
    if ctx.attr.build_file:
        ctx.symlink(ctx.attr.build_file, "BUILD.bazel")

debian_source_archive = repository_rule(
    implementation = _debian_source_archive_impl,
    attrs = {
        "source_package": attr.string(mandatory = True, doc = "Debian's source package, for the error message"),
        "archive": attr.string(mandatory = True, doc = "the file name in the distfiles folder"),
        "sha256": attr.string(mandatory = True),
        "strip_prefix": attr.string(doc = "the archive's top folder"),
        "build_file": attr.label(allow_single_file = True, doc = "a BUILD file for an archive without one"),
    },
    environ = ["NETBENCH_DISTFILES", "HOME"],
)
