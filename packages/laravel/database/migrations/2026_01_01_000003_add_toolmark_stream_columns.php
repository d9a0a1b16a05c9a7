<?php

use Illuminate\Database\Migrations\Migration;
use Illuminate\Database\Schema\Blueprint;
use Illuminate\Support\Facades\Schema;

// Streamed replies and tool calls in the chat: an assistant line keeps the id its streamed text
// carried (`.toolmark.delta`'s messageId), a tool line the part of the page call it reports on (the
// chat replays it from the history), and an agent's call the part it started with (its tool's title
// and its input rendered short and masked), to move it to the page's answer.
return new class extends Migration
{
    public function up(): void
    {
        Schema::table('conversation_messages', function (Blueprint $table) {
            $table->string('stream_id', 64)->nullable(); // the messageId of its streamed text
            $table->json('part')->nullable(); // a tool line's part, masked
        });
        Schema::table('toolmark_calls', function (Blueprint $table) {
            $table->json('part')->nullable(); // an agent's page_call: its running part, masked
        });
    }

    public function down(): void
    {
        Schema::table('toolmark_calls', function (Blueprint $table) {
            $table->dropColumn('part');
        });
        Schema::table('conversation_messages', function (Blueprint $table) {
            $table->dropColumn(['stream_id', 'part']);
        });
    }
};
