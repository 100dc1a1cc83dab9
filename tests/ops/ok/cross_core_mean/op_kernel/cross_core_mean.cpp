// SPDX-License-Identifier: MIT
//
// Kernel of cross_core_mean: each core sums its chunk, publishes the partial
// sum in the user workspace, waits for every core with the mode-0
// CrossCoreSetFlag/CrossCoreWaitFlag pair (a MIX launch, as the pair
// needs), reads all the partials back, and subtracts the mean from its chunk.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void cross_core_mean(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
	GET_TILING_DATA(tilingData, tiling);
	uint32_t idx = (uint32_t)GetBlockIdx(), cores = (uint32_t)GetBlockNum();
	uint32_t start = tilingData.blockLength * idx;
	uint32_t len = tilingData.totalLength - start < tilingData.blockLength ? tilingData.totalLength - start
									      : tilingData.blockLength;
	GlobalTensor<float> xGm, zGm, wsGm;
	xGm.SetGlobalBuffer((__gm__ float *)x + start, len);
	zGm.SetGlobalBuffer((__gm__ float *)z + start, len);
	wsGm.SetGlobalBuffer((__gm__ float *)GetUserWorkspace(workspace), cores * 8);

	TPipe pipe;
	TBuf<QuePosition::VECCALC> dataBuf, workBuf, partBuf, allBuf;
	pipe.InitBuffer(dataBuf, tilingData.blockLength * sizeof(float));
	pipe.InitBuffer(workBuf, 1024 * sizeof(float));
	pipe.InitBuffer(partBuf, 8 * sizeof(float));
	pipe.InitBuffer(allBuf, cores * 8 * sizeof(float));
	LocalTensor<float> data = dataBuf.Get<float>();
	LocalTensor<float> work = workBuf.Get<float>();
	LocalTensor<float> part = partBuf.Get<float>();
	LocalTensor<float> all = allBuf.Get<float>();

	DataCopyPad(data, xGm, DataCopyExtParams(1, len * sizeof(float), 0, 0, 0),
		    DataCopyPadExtParams<float>(false, 0, 0, 0));
	Duplicate(part, 0.0f, 8);
	ReduceSum(part, data, work, len);
	DataCopy(wsGm[idx * 8], part, 8);

	CrossCoreSetFlag<0, PIPE_MTE3>(5);
	Duplicate(part, 0.0f, 8); /* work between the set and the wait */
	CrossCoreWaitFlag(5);

	DataCopy(all, wsGm, cores * 8);
	float total = 0;
	for (uint32_t c = 0; c < cores; c++)
		total += all.GetValue(c * 8);
	float mean = total / (float)tilingData.totalLength;
	Adds(data, data, -mean, len);
	DataCopyPad(zGm, data, DataCopyExtParams(1, len * sizeof(float), 0, 0, 0));
}
