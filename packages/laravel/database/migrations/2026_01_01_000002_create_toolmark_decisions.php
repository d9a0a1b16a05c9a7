<?php

use Illuminate\Database\Migrations\Migration;
use Illuminate\Database\Schema\Blueprint;
use Illuminate\Support\Facades\Schema;

// The user's pending decisions, apart from the page loads that show them: the agent's call that answered
// needs_confirmation, asked again on each new page load of its conversation (a reload, another tab, after
// a restart) until one of its cards is answered or its lifetime ends. A call keeps its input only when
// masking leaves it whole (no secret, nothing that looks like one), so a decision never holds a secret:
// one without input is never asked again.
return new class extends Migration
{
    public function up(): void
    {
        Schema::table('toolmark_calls', function (Blueprint $table) {
            $table->json('input')->nullable(); // the agent's call input, only when masking leaves it whole
        });

        Schema::create('toolmark_decisions', function (Blueprint $table) {
            $table->id();
            $table->foreignId('user_id')->constrained()->cascadeOnDelete();
            $table->foreignId('conversation_id')->constrained()->cascadeOnDelete();
            $table->string('tool_call_id'); // the model's tool-call id the decision answers
            $table->string('tool', 128);
            $table->text('entry'); // the tool's manifest entry as the user saw it (name, title, description, hints, mode)
            $table->json('input')->nullable(); // null: held a secret, never asked again
            $table->string('asked_client_id', 256)->nullable(); // the page load it was last asked on
            $table->string('state', 16)->default('pending'); // pending | decided | dropped
            $table->timestamps(); // created_at: its first card, from which its lifetime runs
            $table->unique(['conversation_id', 'tool_call_id']);
            $table->index(['conversation_id', 'state']);
        });
    }

    public function down(): void
    {
        Schema::dropIfExists('toolmark_decisions');
        Schema::table('toolmark_calls', function (Blueprint $table) {
            $table->dropColumn('input');
        });
    }
};
