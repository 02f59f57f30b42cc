-- Receipts across runners (docs/scale-out.md): every runner publishes its receipt signing key; a rotation retires
-- the old one, which still verifies what it signed before retiredAt.
-- CreateTable
CREATE TABLE "RunnerKey" (
    "keyId" TEXT NOT NULL PRIMARY KEY,
    "runnerId" TEXT NOT NULL,
    "publicKey" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retiredAt" DATETIME
);

-- CreateIndex
CREATE INDEX "RunnerKey_runnerId_idx" ON "RunnerKey"("runnerId");
