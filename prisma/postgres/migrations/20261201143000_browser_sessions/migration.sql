-- Browser sessions: the web app's sign-in mints one (its own cookie), the only credential that counts as
-- `caller: browser`. Who made a call or a run is recorded (caller), and how a call came (via). Policy rules
-- get a target; a session's autonomy change is recorded with who made it.

-- CreateTable
CREATE TABLE "BrowserSession" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "userAgent" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "BrowserSession_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "BrowserSession_secretHash_key" ON "BrowserSession"("secretHash");
CREATE INDEX "BrowserSession_userId_idx" ON "BrowserSession"("userId");

ALTER TABLE "ToolCall" ADD COLUMN "via" TEXT;
ALTER TABLE "Run" ADD COLUMN "caller" TEXT;
ALTER TABLE "Session" ADD COLUMN "autonomyChangedBy" TEXT;
ALTER TABLE "Session" ADD COLUMN "autonomyChangedAt" TIMESTAMP(3);
ALTER TABLE "PolicyRule" ADD COLUMN "appliesTo" TEXT NOT NULL DEFAULT 'everyone';
