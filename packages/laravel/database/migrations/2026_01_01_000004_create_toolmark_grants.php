<?php

use Illuminate\Database\Migrations\Migration;
use Illuminate\Database\Schema\Blueprint;
use Illuminate\Support\Facades\Schema;

// Grants: approvals a user chose to remember ("allow for this conversation", "always for N days"), per user.
// The page's registry decides whether a call matches (tool, fingerprint, caller, expiry); the server keeps the
// list. A grant goes with its user, and a conversation grant with its conversation.
return new class extends Migration
{
    public function up(): void
    {
        Schema::create('toolmark_grants', function (Blueprint $table) {
            $table->uuid('id')->primary();
            $table->foreignId('user_id')->constrained()->cascadeOnDelete();
            $table->string('tool', 128);
            $table->string('title', 200)->nullable();
            $table->string('fingerprint', 64); // toolFingerprint() of the tool the user approved
            $table->string('caller', 16); // inapp | webmcp | mcp | tour | test
            $table->foreignId('conversation_id')->nullable()->constrained('conversations')->cascadeOnDelete();
            $table->unsignedBigInteger('granted_at'); // epoch ms
            $table->unsignedBigInteger('expires_at')->nullable(); // epoch ms; null: a conversation grant
            $table->index(['user_id', 'granted_at']);
        });
    }

    public function down(): void
    {
        Schema::dropIfExists('toolmark_grants');
    }
};
