<?php

use Illuminate\Database\Migrations\Migration;
use Illuminate\Database\Schema\Blueprint;
use Illuminate\Support\Facades\Schema;

// Toolmark's tables: conversations (one user each) and their messages, and the bindings bridge
// protocol v1 requires before anything is sent: page loads, call ids and confirmIds.
return new class extends Migration
{
    public function up(): void
    {
        Schema::create('conversations', function (Blueprint $table) {
            $table->id();
            $table->foreignId('user_id')->constrained()->cascadeOnDelete();
            // The page load (clientId) future calls go to; replaced on a full reload.
            $table->string('active_client_id', 256)->nullable();
            $table->timestamps();
        });

        Schema::create('conversation_messages', function (Blueprint $table) {
            $table->id();
            $table->foreignId('conversation_id')->constrained()->cascadeOnDelete();
            $table->string('role', 16); // user | assistant | tool
            $table->text('text'); // masked, shown in the chat
            $table->json('agent')->nullable(); // masked agent-history entry (tool calls, tool results)
            $table->text('secret_text')->nullable(); // the user's text as typed, encrypted, cleared after the turn
            $table->timestamps();
        });

        // The latest manifest of every page load.
        Schema::create('toolmark_pages', function (Blueprint $table) {
            $table->string('client_id', 256)->primary();
            $table->foreignId('user_id')->constrained()->cascadeOnDelete();
            $table->foreignId('conversation_id')->constrained()->cascadeOnDelete();
            $table->unsignedBigInteger('rev');
            $table->json('tools');
            $table->timestamps();
        });

        // Every call and describe id, bound to user, conversation and page load before it is sent.
        Schema::create('toolmark_calls', function (Blueprint $table) {
            $table->uuid('id')->primary();
            $table->foreignId('user_id')->constrained()->cascadeOnDelete();
            $table->foreignId('conversation_id')->constrained()->cascadeOnDelete();
            $table->string('client_id', 256);
            $table->string('kind', 16); // call | describe
            $table->string('tool', 128);
            $table->string('tool_call_id'); // the model's tool-call id this call answers
            $table->string('origin', 8)->default('agent'); // agent (the agent loop) | app (Toolmark::call)
            $table->timestamp('deadline_at', 3);
            $table->string('state', 16)->default('pending'); // pending | answered | timed_out
            $table->timestamps();
            $table->index(['conversation_id', 'state']);
        });

        // Every confirmId seen in an accepted needs_confirmation, bound like its call; used at most once.
        Schema::create('toolmark_confirmations', function (Blueprint $table) {
            $table->string('confirm_id', 256)->primary();
            $table->foreignId('user_id')->constrained()->cascadeOnDelete();
            $table->foreignId('conversation_id')->constrained()->cascadeOnDelete();
            $table->string('client_id', 256);
            $table->uuid('call_id');
            $table->string('tool_call_id');
            $table->string('tool', 128);
            $table->text('summary');
            $table->string('state', 16)->default('pending'); // pending | used | expired
            $table->timestamps();
        });
    }

    public function down(): void
    {
        Schema::dropIfExists('toolmark_confirmations');
        Schema::dropIfExists('toolmark_calls');
        Schema::dropIfExists('toolmark_pages');
        Schema::dropIfExists('conversation_messages');
        Schema::dropIfExists('conversations');
    }
};
