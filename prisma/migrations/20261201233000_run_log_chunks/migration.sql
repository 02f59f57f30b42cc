-- Run logs in the database (BERTH_LOG_STORE=database): each run's output chunks, readable from any runner.
-- CreateTable
CREATE TABLE "RunLogChunk" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "stream" TEXT NOT NULL,
    "offset" BIGINT NOT NULL,
    "at" DATETIME NOT NULL,
    "data" BLOB NOT NULL,

    PRIMARY KEY ("runId", "seq")
);
