<?php

use Illuminate\Database\Migrations\Migration;
use Illuminate\Database\Schema\Blueprint;
use Illuminate\Support\Facades\Schema;

// What a call needs to be settled like @toolmark/server settles it: its deadline in milliseconds,
// whether its tool was untrustedContent when the call was made, and the values at its sensitive
// input paths (encrypted, cleared when the call settles) to cut out of its result. A page load
// also keeps the sensitive paths its described input schemas declare (`writeOnly`).
return new class extends Migration
{
    public function up(): void
    {
        Schema::table('toolmark_calls', function (Blueprint $table) {
            $table->unsignedBigInteger('deadline_ms')->nullable(); // epoch milliseconds
            $table->boolean('untrusted')->default(false);
            $table->text('secrets')->nullable(); // encrypted JSON list
        });
        Schema::table('toolmark_pages', function (Blueprint $table) {
            $table->json('described')->nullable(); // {tool: [sensitive paths]}
        });
    }

    public function down(): void
    {
        Schema::table('toolmark_pages', function (Blueprint $table) {
            $table->dropColumn('described');
        });
        Schema::table('toolmark_calls', function (Blueprint $table) {
            $table->dropColumn(['deadline_ms', 'untrusted', 'secrets']);
        });
    }
};
