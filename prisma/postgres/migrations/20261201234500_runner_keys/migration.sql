-- Receipts across runners (docs/scale-out.md): every runner publishes its receipt signing key; a rotation retires
-- the old one, which still verifies what it signed before retiredAt.
-- CreateTable
CREATE TABLE "RunnerKey" (
    "keyId" TEXT NOT NULL,
    "runnerId" TEXT NOT NULL,
    "publicKey" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retiredAt" TIMESTAMP(3),

    CONSTRAINT "RunnerKey_pkey" PRIMARY KEY ("keyId")
);

-- CreateIndex
CREATE INDEX "RunnerKey_runnerId_idx" ON "RunnerKey"("runnerId");
