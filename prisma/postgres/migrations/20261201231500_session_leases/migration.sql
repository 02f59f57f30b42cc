-- Several runners on one database (docs/scale-out.md): each session is owned by the runner attached to its container,
-- under a lease the owner renews; a Runner row per runner says where it is reached and when it was last alive.
ALTER TABLE "Session" ADD COLUMN "ownerRunnerId" TEXT;
ALTER TABLE "Session" ADD COLUMN "leaseExpiresAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "Runner" (
    "id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "heartbeatAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Runner_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Session_ownerRunnerId_idx" ON "Session"("ownerRunnerId");

-- CreateIndex
CREATE INDEX "Session_leaseExpiresAt_idx" ON "Session"("leaseExpiresAt");
