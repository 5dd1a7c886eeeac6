"""go_program: one Go program of contestants/go, built with Debian's Go by @debian_go//:build.

    go_program(
        name = "xnet_server",
        srcs = ["xnet_server.go"],
        deps = ["@debian_go//:x_net_websocket"],
    )

Every program is compiled with start_line.go (-version, the start line); its -version names the Debian packages of
the libraries in `deps`.
"""

load("@debian_go//:versions.bzl", "GO_VERSION", "LIBRARY_VERSIONS")

def _go_program_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name)
    versions = [LIBRARY_VERSIONS.get(dep.label.name, dep.label.name + " (not installed)") for dep in ctx.attr.deps]
    ldflags = "-X 'main.libraryVersions=%s'" % "; ".join([GO_VERSION] + versions)
    sources = ctx.files.srcs + ctx.files._common
    library_files = [f for dep in ctx.attr.deps for f in dep.files.to_list()]
    ctx.actions.run(
        executable = ctx.executable._build,
        arguments = [out.path, ctx.file._gopath.path, ldflags] + [f.path for f in sources],
        inputs = sources + library_files + [ctx.file._gopath],
        outputs = [out],
        mnemonic = "GoBuild",
        progress_message = "Building Go program %s" % ctx.label,
        use_default_shell_env = True,
    )
    return [DefaultInfo(executable = out, files = depset([out]))]

go_program = rule(
    implementation = _go_program_impl,
    executable = True,
    attrs = {
        "srcs": attr.label_list(allow_files = [".go"], mandatory = True),
        "deps": attr.label_list(doc = "Go libraries from @debian_go"),
        "_common": attr.label_list(default = ["//contestants/go:start_line.go"], allow_files = True),
        "_build": attr.label(default = "@debian_go//:build", executable = True, cfg = "exec", allow_single_file = True),
        "_gopath": attr.label(default = "@debian_go//:gopath/GOPATH", allow_single_file = True),
    },
)
