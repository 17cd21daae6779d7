// The peer of BenchmarkRemoteHeaderCheck160 (e2e/remote_bench_test.go): the
// Hugging Face Hub's own JavaScript parser, parseSafetensorsMetadata from the
// npm package @huggingface/hub, pointed with its hubUrl option at the test's
// server, which serves the Hub's URL layout.
//
//   node bench/hubparse.mjs install CACHE
//       installs @huggingface/hub HUB_VERSION (below) with npm into
//       CACHE/huggingface-hub-HUB_VERSION, unless it is there already, and
//       prints that directory. The install lives in the cache only: no
//       node_modules or lockfile in the repository.
//   node bench/hubparse.mjs parse DIR HUB_URL ORG/NAME [REVISION]
//       parses the repository's safetensors headers with the package
//       installed in DIR and prints one JSON object: the package's version,
//       the call's own wall time in ms, the tensors (name, dtype, shape,
//       shard file, byte length) sorted by name, and the parameter count by
//       dtype as the package computes it.
//
// Exit status: 0 done, 1 the parse failed, 3 this peer cannot run here (Node
// too old, npm missing or the install failed): the benchmark skips it.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// 2.17.5 is the version measured (the newest on the registry when the
// benchmark was written; it declares Node >= 18, and runs on Node 20). Its
// two dependencies are pinned too, to the versions it resolved then, so a
// run installs the same code.
const HUB_VERSION = "2.17.5";
const PINNED = { "@huggingface/tasks": "0.21.54", "@huggingface/xetchunk-wasm": "0.2.0" };

function cannot(msg) {
	process.stderr.write(`hubparse: ${msg}\n`);
	process.exit(3);
}

function installedVersion(dir) {
	try {
		return JSON.parse(readFileSync(join(dir, "node_modules", "@huggingface", "hub", "package.json"), "utf8")).version;
	} catch {
		return "";
	}
}

function install(cache) {
	const dir = join(cache, `huggingface-hub-${HUB_VERSION}`);
	if (installedVersion(dir) === HUB_VERSION) {
		return dir;
	}
	// Into a directory of its own, renamed when complete: an interrupted
	// install is never taken for a finished one.
	const tmp = `${dir}.tmp-${process.pid}`;
	rmSync(tmp, { recursive: true, force: true });
	mkdirSync(tmp, { recursive: true });
	const pkg = {
		name: "fsmount-hubparse",
		private: true,
		dependencies: { "@huggingface/hub": HUB_VERSION },
		overrides: PINNED,
	};
	writeFileSync(join(tmp, "package.json"), JSON.stringify(pkg, null, "\t") + "\n");
	try {
		execFileSync(
			"npm",
			["install", "--no-audit", "--no-fund", "--ignore-scripts", "--omit=optional", "--loglevel=error"],
			{ cwd: tmp, stdio: ["ignore", "ignore", "pipe"], timeout: 180_000 },
		);
	} catch (err) {
		rmSync(tmp, { recursive: true, force: true });
		// npm's own lines, without its stack trace.
		const lines = String(err.stderr || err.message)
			.split("\n")
			.filter((l) => l.trim() && !/^npm error\s+at /.test(l));
		const why = err.code === "ENOENT" ? "npm is not installed" : lines.slice(0, 4).join("; ");
		cannot(`npm install @huggingface/hub@${HUB_VERSION} failed: ${why}`);
	}
	if (installedVersion(tmp) !== HUB_VERSION) {
		rmSync(tmp, { recursive: true, force: true });
		cannot(`npm installed @huggingface/hub ${installedVersion(tmp) || "nothing"}, not ${HUB_VERSION}`);
	}
	rmSync(dir, { recursive: true, force: true });
	renameSync(tmp, dir);
	return dir;
}

async function parse(dir, hubUrl, repo, revision) {
	const version = installedVersion(dir);
	if (version !== HUB_VERSION) {
		cannot(`${dir} holds @huggingface/hub ${version || "nothing"}, not ${HUB_VERSION}: run install`);
	}
	// The package as a user's program imports it: its exports' "import"
	// entry, from the install directory rather than from this script's.
	const pkgDir = join(dir, "node_modules", "@huggingface", "hub");
	const entry = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).exports["."].import;
	const { parseSafetensorsMetadata } = await import(pathToFileURL(join(pkgDir, entry)).href);

	const start = performance.now();
	const res = await parseSafetensorsMetadata({ repo, revision, hubUrl, computeParametersCount: true });
	const ms = performance.now() - start;

	const headers = res.sharded ? res.headers : { [res.filepaths[0]]: res.header };
	const tensors = [];
	for (const [file, header] of Object.entries(headers)) {
		for (const [name, info] of Object.entries(header)) {
			if (name === "__metadata__") {
				continue;
			}
			tensors.push({
				name,
				dtype: info.dtype,
				shape: info.shape,
				file,
				bytes: info.data_offsets[1] - info.data_offsets[0],
			});
		}
	}
	tensors.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
	const out = {
		version,
		ms,
		sharded: res.sharded,
		shards: Object.keys(headers).length,
		tensors,
		parameterCount: res.parameterCount,
		parameterTotal: res.parameterTotal ?? null,
	};
	process.stdout.write(JSON.stringify(out) + "\n");
}

const major = Number(process.versions.node.split(".")[0]);
if (major < 18) {
	cannot(`Node ${process.versions.node} is too old: @huggingface/hub ${HUB_VERSION} needs Node >= 18`);
}
const [cmd, ...args] = process.argv.slice(2);
if (cmd === "install" && args.length === 1) {
	process.stdout.write(install(args[0]) + "\n");
} else if (cmd === "parse" && (args.length === 3 || args.length === 4)) {
	if (!existsSync(args[0])) {
		cannot(`no install at ${args[0]}: run install`);
	}
	try {
		await parse(args[0], args[1], args[2], args[3] ?? "main");
	} catch (err) {
		process.stderr.write(`hubparse: ${err && err.stack ? err.stack : err}\n`);
		process.exit(1);
	}
} else {
	process.stderr.write("usage: node hubparse.mjs install CACHE | parse DIR HUB_URL ORG/NAME [REVISION]\n");
	process.exit(64);
}
